#include "engine/measured/kernel_rules.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "engine/scenario/scenario_file.h"

namespace hcpsim {
namespace {

KernelRule rule(const char* pattern, MeasuredKind kind) { return {pattern, kind, "built-in"}; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& field, const std::string& msg) {
  std::string where = file;
  if (n.IsDefined() && n.Mark().line >= 0) where += ":" + std::to_string(n.Mark().line + 1);
  throw std::runtime_error(where + ": error: " + field + ": " + msg);
}

std::string valid_kinds() {
  std::string out;
  for (int i = 0; i < kMeasuredKindCount; ++i) out += std::string(i ? ", " : "") + to_string(static_cast<MeasuredKind>(i));
  return out;
}

}  // namespace

const std::vector<KernelRule>& builtin_kernel_rules() {
  using K = MeasuredKind;
  static const std::vector<KernelRule> rules = {
      // NCCL / RCCL kernels: ncclDevKernel_AllGather_RING_LL, ncclKernel_AllReduce_RING_LL_Sum_float, ...
      rule(R"(nccl.*(sendrecv|_send|_recv))", K::SendRecv),
      rule(R"(nccl.*(alltoall|all_to_all))", K::AllToAll),
      rule(R"(nccl.*allgather)", K::AllGather),
      rule(R"(nccl.*reducescatter)", K::ReduceScatter),
      rule(R"(nccl.*allreduce)", K::AllReduce),
      rule(R"(nccl)", K::OtherCommunication),
      // Attention backward before forward: FlashAttention 2 (flash_bwd_*), FlashAttention 3
      // (FlashAttnBwdSm90), cuDNN fused attention (..._sdpa_..._bprop_...), PyTorch SDPA's
      // memory-efficient kernels (fmha_cutlassB, efficient_attention_backward), Triton attention.
      rule(R"(flash_bwd|flashattnbwd|flash_attn.*(bwd|backward)|sdpa.*bprop|fmha.*(bwd|cutlassb)|efficient_attention_backward|attn_bwd|attention.*backward)", K::AttentionBackward),
      rule(R"(flash_fwd|flashattnfwd|flash_attn|sdpa.*fprop|fmha|efficient_attention_forward|attn_fwd|attention.*forward)", K::AttentionForward),
      // cuBLAS / cuBLASLt (sm90_xmma_gemm_*, ampere_sgemm_*, nvjet_*), CUTLASS (cutlass::Kernel,
      // cutlass_80_tensorop_*), rocBLAS / hipBLASLt (Cijk_*), cuDNN convolutions (implicit_gemm).
      rule(R"(gemm|gemv|nvjet|cutlass|xmma|^cijk_|wgmma|matmul)", K::Gemm),
      // Transformer Engine's ring-attention helpers (thd_out_correction_kernel, thd_lse_kernel).
      rule(R"(out_correction)", K::OutCorrection),
      rule(R"(lse_kernel|lse_merge|_lse_)", K::LseMerge),
      rule(R"(^memcpy|direct_copy|catarraybatchedcopy|copy_kernel|nchwtonhwc|nhwctonchw)", K::Copy),
      rule(R"(multi_tensor_apply|adam|lamb_|sgd|optimizer)", K::Optimizer),
      rule(R"(^memset|elementwise|reduce_kernel|norm|moments|gammabeta|bn_fw|bn_bw|pool|softmax|dropout|rotary|rope|cast|gelu|silu|swiglu|transformer_engine|fill|index|scatter|gather|cub::|transpose)", K::MemoryBound),
  };
  return rules;
}

std::vector<KernelRule> load_kernel_rules_string(const std::string& yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw std::runtime_error(file + ":" + std::to_string(e.mark.line + 1) + ": error: kernel rules: YAML syntax: " + e.msg);
  }
  if (!root.IsMap() || !root["kernel_rules"]) fail(file, root, "kernel_rules", "expected a mapping with a list 'kernel_rules'");
  const YAML::Node list = root["kernel_rules"];
  if (!list.IsSequence()) fail(file, list, "kernel_rules", "expected a list of {match: REGEX, kind: KIND}");
  std::vector<KernelRule> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node e = list[i];
    const std::string f = "kernel_rules[" + std::to_string(i) + "]";
    if (!e.IsMap()) fail(file, e, f, "expected a mapping {match: REGEX, kind: KIND}");
    for (const auto& kv : e) {
      const auto key = kv.first.as<std::string>();
      if (key != "match" && key != "kind") fail(file, kv.first, f + "." + key, "unknown key; valid keys: match, kind");
    }
    if (!e["match"] || !e["match"].IsScalar()) fail(file, e, f + ".match", "missing regular expression");
    if (!e["kind"] || !e["kind"].IsScalar()) fail(file, e, f + ".kind", "missing kind; valid kinds: " + valid_kinds());
    KernelRule r;
    r.pattern = e["match"].as<std::string>();
    r.source = file + ":" + std::to_string(e.Mark().line + 1);
    if (!parse_measured_kind(e["kind"].as<std::string>(), r.kind))
      fail(file, e["kind"], f + ".kind", "'" + e["kind"].as<std::string>() + "' is not a kind; valid kinds: " + valid_kinds());
    try {
      std::regex check(r.pattern, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& err) {
      fail(file, e["match"], f + ".match", "'" + r.pattern + "' is not a regular expression: " + err.what());
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<KernelRule> load_kernel_rules_file(const std::string& path) {
  return load_kernel_rules_string(read_file_or_throw(path, "kernel rules file", "kernel rules"), path);
}

KernelClassifier::KernelClassifier(std::vector<KernelRule> extra) : rules_(std::move(extra)) {
  const auto& builtin = builtin_kernel_rules();
  rules_.insert(rules_.end(), builtin.begin(), builtin.end());
  for (const auto& r : rules_) compiled_.emplace_back(r.pattern, std::regex::ECMAScript | std::regex::icase | std::regex::optimize);
}

MeasuredKind KernelClassifier::classify(std::string_view name) const {
  // Long templated names: the rules look at the first 512 characters, which hold the kernel's own name.
  const std::string head(name.substr(0, 512));
  for (std::size_t i = 0; i < compiled_.size(); ++i) {
    if (std::regex_search(head, compiled_[i])) return rules_[i].kind;
  }
  return MeasuredKind::Other;
}

bool KernelClassifier::collective_kind(std::string_view collective, MeasuredKind& out) {
  std::string c = lower(collective);
  c.erase(std::remove(c.begin(), c.end(), '_'), c.end());
  if (c.find("alltoall") != std::string::npos) out = MeasuredKind::AllToAll;
  else if (c.find("allgather") != std::string::npos) out = MeasuredKind::AllGather;
  else if (c.find("reducescatter") != std::string::npos) out = MeasuredKind::ReduceScatter;
  else if (c.find("allreduce") != std::string::npos) out = MeasuredKind::AllReduce;
  else if (c == "send" || c == "recv" || c == "sendrecv" || c.find("batchisendirecv") != std::string::npos)
    out = MeasuredKind::SendRecv;
  else return false;
  return true;
}

}  // namespace hcpsim
