// The top level, `model:`, `train:`, `dist:` and `simulation:` sections.
#include "engine/scenario/convert.h"

#include "engine/scenario/limits.h"

namespace hcpsim::detail {

namespace {

constexpr long long kMaxWorldSize = limits::kMaxWorldSize;   // GPUs

// The scenario name's alphabet: a-z, 0-9, '.', '_', '-' (checked by hand: a regex recurses per character).
bool is_valid_name(const std::string& s) {
  if (s.empty()) return false;
  for (const char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')) return false;
  return true;
}

// cp_comm_type names as TE spells them; "allgather" is Megatron's help-text spelling that TE rejects.
std::optional<CpCommType> comm_type_of(const YAML::Node& n, const std::string& path, YamlReader& r) {
  auto s = r.string_of(n, path);
  if (!s) return std::nullopt;
  if (const auto t = comm_type_named(*s)) return t;
  if (*s == "allgather") {
    r.error(n, path, "Unsupported communication type: allgather!",
            {"Transformer Engine spells it 'all_gather' (Megatron's --cp-comm-type help text says "
             "'allgather', which TE rejects)"});
  } else {
    r.error(n, path, "Unsupported communication type: " + *s + "!",
            {"valid values: p2p, all_gather, a2a, a2a+p2p (or a list with one per layer), or dfa (DistFlashAttn, all layers)"});
  }
  return std::nullopt;
}

// Megatron-Bridge's precision switches (TransformerConfig bf16 / fp16) and gated_linear_unit: mapped
// onto params_dtype where they agree with it, refused naming both fields where they do not, and a
// warning where they ask for what hcpsim does not price (fp32 training, a non-gated MLP).
void convert_bridge_precision(const YAML::Node& m, YamlReader& r, ModelConfig& mo) {
  const std::optional<bool> bf16 = r.get_bool(m, "model", "bf16");
  const std::optional<bool> fp16 = r.get_bool(m, "model", "fp16");
  if (bf16.value_or(false) && fp16.value_or(false)) {
    r.error(m["fp16"], "model.fp16", "model.bf16 and model.fp16 are both true; set one of them (or model.params_dtype)");
  } else if (bf16.value_or(false) || fp16.value_or(false)) {
    const DType d = bf16.value_or(false) ? DType::BF16 : DType::FP16;
    const char* key = d == DType::BF16 ? "bf16" : "fp16";
    if (m["params_dtype"].IsDefined() && mo.params_dtype != d)
      r.error(m[key], std::string("model.") + key, std::string("model.") + key + ": true disagrees with model.params_dtype " +
                                                       (mo.params_dtype == DType::BF16 ? "bf16" : "fp16"),
              {"keep one of the two fields"});
    mo.params_dtype = d;
  } else if ((bf16 || fp16) && !m["params_dtype"].IsDefined()) {
    const char* key = bf16 ? "bf16" : "fp16";
    r.warning(m[key], std::string("model.") + key, std::string("model.bf16 and model.fp16 are false (fp32 training): not modelled by hcpsim; "
                                                   "predicted with model.params_dtype ") +
                                           (mo.params_dtype == DType::BF16 ? "bf16" : "fp16"));
  }
  if (const std::optional<bool> glu = r.get_bool(m, "model", "gated_linear_unit"); glu && !*glu)
    r.warning(m["gated_linear_unit"], "model.gated_linear_unit",
              "false (a GeLU MLP) is not modelled by hcpsim: the MLP is priced as a gated (SwiGLU) one with "
              "model.ffn_hidden_size");
}

void convert_model(const YAML::Node& m, YamlReader& r, Scenario& s) {
  const std::string P = "model";
  if (!r.check_map(m, P, P)) return;
  auto& mo = s.model;
  for (const char* k : {"num_layers", "hidden_size", "num_attention_heads", "seq_length"}) {
    if (!m[k].IsDefined())
      r.error(m, std::string("model.") + k, std::string("missing required field '") + k + "'");
  }
  auto set_int = [&](const char* key, int& dst) {
    if (auto v = r.get_int(m, P, key, 1)) dst = static_cast<int>(*v);
  };
  set_int("num_layers", mo.num_layers);
  set_int("hidden_size", mo.hidden_size);
  set_int("ffn_hidden_size", mo.ffn_hidden_size);
  set_int("num_attention_heads", mo.num_attention_heads);
  set_int("num_query_groups", mo.num_query_groups);
  set_int("kv_channels", mo.kv_channels);
  if (auto v = r.get_int(m, P, "seq_length", 1)) mo.seq_length = *v;
  if (auto v = r.get_choice(m, P, "attn_mask_type", {"causal", "no_mask"}))
    mo.attn_mask_type = *v == "causal" ? MaskType::Causal : MaskType::NoMask;
  if (auto v = r.get_choice(m, P, "params_dtype", {"bf16", "fp16"}))
    mo.params_dtype = *v == "bf16" ? DType::BF16 : DType::FP16;
  convert_bridge_precision(m, r, mo);
  set_int("tensor_model_parallel_size", mo.tensor_model_parallel_size);
  set_int("pipeline_model_parallel_size", mo.pipeline_model_parallel_size);
  set_int("context_parallel_size", mo.context_parallel_size);
  if (auto v = r.get_bool(m, P, "sequence_parallel")) mo.sequence_parallel = *v;
  if (auto v = r.get_bool(m, P, "tp_comm_overlap")) mo.tp_comm_overlap = *v;
  // null (Bridge's None) leaves overlap_p2p_comm unset: Megatron-LM's own choice by schedule.
  if (const YAML::Node n = m["overlap_p2p_comm"]; n.IsDefined() && !n.IsNull())
    if (auto v = r.get_bool(m, P, "overlap_p2p_comm")) mo.overlap_p2p_comm = *v;
  // Megatron-Bridge leaves virtual_pipeline_model_parallel_size as None when not interleaving.
  if (const YAML::Node n = m["virtual_pipeline_model_parallel_size"]; n.IsDefined() && !n.IsNull())
    set_int("virtual_pipeline_model_parallel_size", mo.virtual_pipeline_model_parallel_size);
  // Megatron's uneven pipeline split; null (Bridge's None) is unset, like an absent key.
  for (const auto& [key, dst] : {std::pair{"decoder_first_pipeline_num_layers", &mo.decoder_first_pipeline_num_layers},
                                 {"decoder_last_pipeline_num_layers", &mo.decoder_last_pipeline_num_layers}})
    if (const YAML::Node n = m[key]; n.IsDefined() && !n.IsNull())
      if (auto v = r.get_int(m, P, key, 1)) *dst = static_cast<int>(*v);
  if (auto v = r.get_bool(m, P, "account_for_embedding_in_pipeline_split")) mo.account_for_embedding_in_pipeline_split = *v;
  if (auto v = r.get_bool(m, P, "account_for_loss_in_pipeline_split")) mo.account_for_loss_in_pipeline_split = *v;
  if (const YAML::Node n = m["recompute_granularity"]; n.IsDefined() && !n.IsNull()) {
    if (auto v = r.get_choice(m, P, "recompute_granularity", {"selective", "full", "non_attention", "selective_op"}))
      mo.recompute_granularity = *v == "full"            ? RecomputeGranularity::Full
                                 : *v == "non_attention" ? RecomputeGranularity::NonAttention
                                 : *v == "selective_op"  ? RecomputeGranularity::SelectiveOp
                                                         : RecomputeGranularity::Selective;
  }
  if (const YAML::Node n = m["recompute_method"]; n.IsDefined() && !n.IsNull()) {
    if (auto v = r.get_choice(m, P, "recompute_method", {"uniform", "block"}))
      mo.recompute_method = *v == "uniform" ? RecomputeMethod::Uniform : RecomputeMethod::Block;
  }
  if (const YAML::Node n = m["recompute_num_layers"]; n.IsDefined() && !n.IsNull())
    set_int("recompute_num_layers", mo.recompute_num_layers);
  if (auto v = r.get_choice(m, P, "elementwise_ops", {"none", "fused", "unfused"}))
    mo.elementwise_ops = *v == "fused"     ? ElementwiseOps::Fused
                         : *v == "unfused" ? ElementwiseOps::Unfused
                                           : ElementwiseOps::None;
  if (const YAML::Node n = m["fp8"]; n.IsDefined() && !n.IsNull()) {
    if (auto v = r.get_choice(m, P, "fp8", {"hybrid", "e4m3"})) mo.fp8 = *v;
  }
  if (auto v = r.get_choice(m, P, "fp8_recipe", {"delayed", "tensorwise", "mxfp8", "blockwise"})) mo.fp8_recipe = *v;
  if (auto v = r.get_bool(m, P, "fp8_dot_product_attention")) mo.fp8_dot_product_attention = *v;
  if (auto v = r.get_int(m, P, "vocab_size", 1)) mo.vocab_size = *v;
  if (auto v = r.get_bool(m, P, "untie_embeddings_and_output_weights")) mo.untie_embeddings_and_output_weights = *v;
  if (const YAML::Node n = m["dsa"]; n.IsDefined() && !n.IsNull()) convert_dsa(n, r, s);

  if (const YAML::Node n = m["cp_comm_type"]; n.IsDefined()) {
    const std::string path = "model.cp_comm_type";
    if (n.IsSequence()) {
      std::vector<CpCommType> list;
      bool ok = n.size() > 0;
      if (!ok) r.error(n, path, "cp_comm_type list is empty", {"give one entry per layer, or a single name"});
      if (!r.check_list_size(n, path, limits::kMaxLayerList)) return;
      for (std::size_t i = 0; i < n.size(); ++i) {
        r.record_item(n[i], path + "[" + std::to_string(i) + "]");
        auto t = comm_type_of(n[i], path + "[" + std::to_string(i) + "]", r);
        if (t) list.push_back(*t);
        else ok = false;
      }
      if (ok) mo.cp_comm_type = list;
    } else if (n.IsScalar()) {
      if (auto t = comm_type_of(n, path, r)) mo.cp_comm_type = {*t};
    } else {
      r.error(n, path, std::string("cp_comm_type must be a str or list of str, got ") + node_kind(n) + ".");
    }
  }
  if (const YAML::Node n = m["hierarchical_context_parallel_sizes"]; n.IsDefined() && !n.IsNull()) {
    const std::string path = "model.hierarchical_context_parallel_sizes";
    if (!n.IsSequence()) {
      r.error(n, path, std::string("expected a list of sizes such as [4, 2], got ") + node_kind(n));
    } else {
      std::vector<int> sizes;
      const bool fits = r.check_list_size(n, path, limits::kMaxHierarchicalLevels);
      bool ok = fits;
      for (std::size_t i = 0; fits && i < n.size(); ++i) {
        r.record_item(n[i], path + "[" + std::to_string(i) + "]");
        auto v = r.int_of(n[i], path + "[" + std::to_string(i) + "]", 1);
        if (v) sizes.push_back(static_cast<int>(*v));
        else ok = false;
      }
      if (ok) mo.hierarchical_context_parallel_sizes = sizes;
    }
  }
}

void convert_simulation(const YAML::Node& m, YamlReader& r, Scenario& s) {
  const std::string P = "simulation";
  if (!r.check_map(m, P, P)) return;
  if (auto v = r.get_string(m, P, "backend", limits::kMaxNameChars)) {
    if (v->empty()) r.error(m["backend"], "simulation.backend", "backend name is empty",
                            {"e.g. simgrid or analytic (`hcpsim simulate --help` lists them)"});
    else s.simulation.backend = *v;
  }
  if (auto v = r.get_int(m, P, "layers", 1)) s.simulation.layers = static_cast<int>(*v);
  if (auto v = r.get_choice(m, P, "fold", {"auto", "off"})) s.simulation.fold = *v == "off" ? FoldMode::Off : FoldMode::Auto;
  if (const YAML::Node n = m["passes"]; n.IsDefined()) {
    const std::string path = "simulation.passes";
    if (!n.IsSequence() || n.size() == 0) {
      r.error(n, path, std::string("expected a non-empty list such as [forward, backward], got ") + node_kind(n));
      return;
    }
    if (!r.check_list_size(n, path, 2)) return;
    bool fwd = false, bwd = false;
    for (std::size_t i = 0; i < n.size(); ++i) {
      const std::string ip = path + "[" + std::to_string(i) + "]";
      r.record_item(n[i], ip);
      auto p = r.string_of(n[i], ip);
      if (!p) continue;
      bool& flag = *p == "forward" ? fwd : bwd;
      if (*p != "forward" && *p != "backward") {
        r.error(n[i], ip, "unknown pass '" + *p + "' (valid values: forward, backward)");
      } else if (flag) {
        r.error(n[i], ip, "pass '" + *p + "' is listed twice");
      } else {
        flag = true;
      }
    }
    s.simulation.forward = fwd;
    s.simulation.backward = bwd;
  }
}

}  // namespace

void convert_scenario(const YAML::Node& root, YamlReader& r, const ConvertInputs& in, Scenario& s) {
  if (!r.check_map(root, "", "")) return;
  if (!root["name"].IsDefined()) {
    r.error(root, "name", "missing required field 'name'", {"e.g. name: llama3-8b-128k-dgx-h100"});
  } else if (auto v = r.get_string(root, "", "name", limits::kMaxNameChars)) {
    if (!is_valid_name(*v))
      r.error(root["name"], "name", "name '" + clip(*v) + "' may only use a-z, 0-9, '.', '_' and '-'");
    else s.name = *v;
  }
  if (auto v = r.get_string(root, "", "description")) s.description = *v;

  if (!root["model"].IsDefined()) r.error(root, "model", "missing required section 'model'");
  else convert_model(root["model"], r, s);

  if (const YAML::Node t = root["train"]; t.IsDefined() && r.check_map(t, "train", "train")) {
    if (auto v = r.get_int(t, "train", "micro_batch_size", 1)) s.train.micro_batch_size = static_cast<int>(*v);
    if (auto v = r.get_int(t, "train", "global_batch_size", 1)) {
      if (*v > (1LL << 30))
        r.error(t["global_batch_size"], "train.global_batch_size",
                std::to_string(*v) + " sequences is larger than hcpsim's limit of 1073741824");
      else
        s.train.global_batch_size = static_cast<int>(*v);
    }
    if (auto v = r.get_choice(t, "train", "mode", {"train", "prefill"}))
      s.train.mode = *v == "train" ? TrainMode::Train : TrainMode::Prefill;
  }
  if (const YAML::Node d = root["ddp"]; d.IsDefined() && r.check_map(d, "ddp", "ddp")) {
    if (auto v = r.get_bool(d, "ddp", "use_distributed_optimizer")) s.ddp.use_distributed_optimizer = *v;
    if (auto v = r.get_bool(d, "ddp", "overlap_grad_reduce")) s.ddp.overlap_grad_reduce = *v;
    if (auto v = r.get_bool(d, "ddp", "overlap_param_gather")) s.ddp.overlap_param_gather = *v;
    if (auto v = r.get_bool(d, "ddp", "shard_parameters")) s.ddp.shard_parameters = *v;
    if (auto v = r.get_bool(d, "ddp", "grad_reduce_in_fp32")) s.ddp.grad_reduce_in_fp32 = *v;
  }
  if (const YAML::Node d = root["dist"]; d.IsDefined() && r.check_map(d, "dist", "dist")) {
    if (auto v = r.get_bool(d, "dist", "use_decentralized_pg")) s.dist.use_decentralized_pg = *v;
    if (auto v = r.get_string(d, "dist", "order")) s.dist.order = *v;
  }
  bool nics_set = false;
  if (const YAML::Node c = root["cluster"]; c.IsDefined()) convert_cluster(c, r, in, s.cluster, nics_set, true);
  if (!nics_set) s.cluster.nics_per_node = s.cluster.gpus_per_node;
  if (const YAML::Node m = root["simulation"]; m.IsDefined()) convert_simulation(m, r, s);
  if (const YAML::Node h = root["hyperparallel"]; h.IsDefined()) convert_hyperparallel(h, r, s);
  if (s.model.num_query_groups == 0) s.model.num_query_groups = s.model.num_attention_heads;

  // Size limits keep every later product in range and every layout small enough to build.
  const long long world = static_cast<long long>(s.cluster.nodes) * s.cluster.gpus_per_node;
  if (world > kMaxWorldSize)
    r.error(root["cluster"], "cluster.nodes",
            "world size nodes x gpus_per_node = " + std::to_string(world) + " is larger than hcpsim's limit of " +
                std::to_string(kMaxWorldSize) + " GPUs");
  const std::pair<const char*, int> sizes[] = {{"tensor_model_parallel_size", s.model.tensor_model_parallel_size},
                                               {"pipeline_model_parallel_size", s.model.pipeline_model_parallel_size},
                                               {"context_parallel_size", s.model.context_parallel_size}};
  for (const auto& [key, v] : sizes) {
    if (v > kMaxWorldSize)
      r.error(root["model"][key], std::string("model.") + key,
              std::to_string(v) + " is larger than hcpsim's limit of " + std::to_string(kMaxWorldSize));
  }
}

}  // namespace hcpsim::detail
