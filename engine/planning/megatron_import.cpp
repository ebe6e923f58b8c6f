#include "engine/planning/megatron_import.h"

#include <yaml-cpp/yaml.h>

#include <map>
#include <stdexcept>

namespace hcpsim::planning {
namespace {

enum class Arg { Int, Text, IntList, TextList, Flag, FlagOff };   // FlagOff: a --no-X flag, the key false

struct Mapping {
  const char* key;   // scenario key ("" = handled below)
  Arg kind;
};

const std::map<std::string, Mapping>& mappings() {
  static const std::map<std::string, Mapping> m{
      {"--num-layers", {"model.num_layers", Arg::Int}},
      {"--hidden-size", {"model.hidden_size", Arg::Int}},
      {"--ffn-hidden-size", {"model.ffn_hidden_size", Arg::Int}},
      {"--num-attention-heads", {"model.num_attention_heads", Arg::Int}},
      {"--num-query-groups", {"model.num_query_groups", Arg::Int}},
      {"--kv-channels", {"model.kv_channels", Arg::Int}},
      {"--seq-length", {"model.seq_length", Arg::Int}},
      {"--tensor-model-parallel-size", {"model.tensor_model_parallel_size", Arg::Int}},
      {"--pipeline-model-parallel-size", {"model.pipeline_model_parallel_size", Arg::Int}},
      {"--context-parallel-size", {"model.context_parallel_size", Arg::Int}},
      {"--cp-comm-type", {"model.cp_comm_type", Arg::TextList}},
      {"--hierarchical-context-parallel-sizes", {"model.hierarchical_context_parallel_sizes", Arg::IntList}},
      {"--num-layers-per-virtual-pipeline-stage", {"", Arg::Int}},
      {"--num-virtual-stages-per-pipeline-rank", {"model.virtual_pipeline_model_parallel_size", Arg::Int}},
      {"--decoder-first-pipeline-num-layers", {"model.decoder_first_pipeline_num_layers", Arg::Int}},
      {"--decoder-last-pipeline-num-layers", {"model.decoder_last_pipeline_num_layers", Arg::Int}},
      {"--account-for-embedding-in-pipeline-split", {"model.account_for_embedding_in_pipeline_split", Arg::Flag}},
      {"--account-for-loss-in-pipeline-split", {"model.account_for_loss_in_pipeline_split", Arg::Flag}},
      {"--sequence-parallel", {"model.sequence_parallel", Arg::Flag}},
      {"--tp-comm-overlap", {"model.tp_comm_overlap", Arg::Flag}},
      {"--no-overlap-p2p-communication", {"model.overlap_p2p_comm", Arg::FlagOff}},
      {"--overlap-p2p-communication", {"model.overlap_p2p_comm", Arg::Flag}},   // older Megatron-LM
      {"--use-tp-pp-dp-mapping", {"", Arg::Flag}},
      {"--recompute-granularity", {"model.recompute_granularity", Arg::Text}},
      {"--recompute-method", {"model.recompute_method", Arg::Text}},
      {"--recompute-num-layers", {"model.recompute_num_layers", Arg::Int}},
      {"--micro-batch-size", {"train.micro_batch_size", Arg::Int}},
      {"--global-batch-size", {"train.global_batch_size", Arg::Int}},
      {"--use-distributed-optimizer", {"ddp.use_distributed_optimizer", Arg::Flag}},
      {"--overlap-grad-reduce", {"ddp.overlap_grad_reduce", Arg::Flag}},
      {"--overlap-param-gather", {"ddp.overlap_param_gather", Arg::Flag}},
      {"--untie-embeddings-and-output-weights", {"model.untie_embeddings_and_output_weights", Arg::Flag}},
      {"--fp8-format", {"model.fp8", Arg::Text}},
      {"--fp8-recipe", {"model.fp8_recipe", Arg::Text}},
      {"--fp8-dot-product-attention", {"model.fp8_dot_product_attention", Arg::Flag}},
      {"--padded-vocab-size", {"model.vocab_size", Arg::Int}},
      {"--vocab-size", {"model.vocab_size", Arg::Int}},
      {"--attention-mask-type", {"model.attn_mask_type", Arg::Text}},
      {"--bf16", {"", Arg::Flag}},
      {"--fp16", {"", Arg::Flag}},
      {"--swiglu", {"", Arg::Flag}},
      {"--group-query-attention", {"", Arg::Flag}},
      {"--max-position-embeddings", {"", Arg::Int}}};
  return m;
}

long long int_of(const std::string& flag, const std::string& v) {
  std::size_t used = 0;
  long long x = 0;
  try {
    x = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty()) throw std::invalid_argument(flag + " " + v + ": not an integer");
  return x;
}

bool is_flag(const std::string& a) { return a.size() > 2 && a.compare(0, 2, "--") == 0; }

}  // namespace

MegatronImport import_megatron(const std::vector<std::string>& args, const ImportCluster& cluster) {
  if (cluster.nodes <= 0) throw std::invalid_argument("--nodes: the job's number of nodes is required (Megatron's arguments do not say)");
  MegatronImport out;
  std::map<std::string, YAML::Node> keys;   // scenario key -> value
  std::map<std::string, bool> flags;
  long long layers_per_virtual_stage = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    std::string inline_value;
    const bool has_inline = a.find('=') != std::string::npos && is_flag(a);
    if (has_inline) {
      inline_value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
    }
    if (!is_flag(a)) {
      out.warnings.push_back(a + ": not an argument of pretrain_gpt.py (ignored)");
      continue;
    }
    std::vector<std::string> values;
    if (has_inline) values.push_back(inline_value);
    while (!has_inline && i + 1 < args.size() && !is_flag(args[i + 1])) values.push_back(args[++i]);
    const auto it = mappings().find(a);
    if (it == mappings().end()) {
      out.warnings.push_back(a + (values.empty() ? "" : " " + values.front()) + ": ignored (not modelled by hcpsim)");
      continue;
    }
    const Mapping& m = it->second;
    if (m.kind == Arg::Flag || m.kind == Arg::FlagOff) {
      if (!values.empty()) throw std::invalid_argument(a + " takes no value (got '" + values.front() + "')");
      flags[a] = true;
      if (*m.key) keys[m.key] = m.kind == Arg::Flag;
      continue;
    }
    if (values.empty()) throw std::invalid_argument(a + ": needs a value");
    if ((m.kind == Arg::Int || m.kind == Arg::Text) && values.size() > 1)
      throw std::invalid_argument(a + ": takes one value (got " + std::to_string(values.size()) + ")");
    YAML::Node v;
    if (m.kind == Arg::Int) v = int_of(a, values[0]);
    else if (m.kind == Arg::Text) v = values[0];
    else
      for (const std::string& x : values) v.push_back(m.kind == Arg::IntList ? YAML::Node(int_of(a, x)) : YAML::Node(x));
    if (m.kind == Arg::TextList && values.size() == 1) v = values[0];
    if (a == "--num-layers-per-virtual-pipeline-stage") layers_per_virtual_stage = int_of(a, values[0]);
    else if (*m.key) keys[m.key] = v;
  }
  for (const char* need : {"model.num_layers", "model.hidden_size", "model.num_attention_heads", "model.seq_length"})
    if (keys.count(need) == 0)
      throw std::invalid_argument(std::string("--") + std::string(need + 6) + ": required (" + need + ")");
  // Megatron's defaults where an argument is absent.
  if (!flags.count("--group-query-attention")) keys.erase("model.num_query_groups");
  for (const char* k : {"ddp.use_distributed_optimizer", "ddp.overlap_grad_reduce", "ddp.overlap_param_gather",
                        "model.untie_embeddings_and_output_weights", "model.sequence_parallel"})
    if (!keys.count(k)) keys[k] = false;
  if (flags.count("--use-tp-pp-dp-mapping")) keys["dist.order"] = "tp-cp-ep-pp-dp";
  if (flags.count("--fp16")) keys["model.params_dtype"] = "fp16";
  else keys["model.params_dtype"] = "bf16";
  if (!flags.count("--bf16") && !flags.count("--fp16"))
    out.warnings.push_back("neither --bf16 nor --fp16: fp32 training is not modelled by hcpsim; predicted as bf16");
  if (!flags.count("--swiglu"))
    out.warnings.push_back("no --swiglu: hcpsim prices a gated (SwiGLU) MLP; a GeLU MLP's FLOPs and memory are not modelled");
  const bool uneven = keys.count("model.decoder_first_pipeline_num_layers") || keys.count("model.decoder_last_pipeline_num_layers") ||
                      keys.count("model.account_for_embedding_in_pipeline_split") || keys.count("model.account_for_loss_in_pipeline_split");
  if (layers_per_virtual_stage > 0 && uneven)
    throw std::invalid_argument("--num-layers-per-virtual-pipeline-stage: not with an uneven pipeline split (Megatron-LM refuses it); "
                                "give the virtual pipeline size with --num-virtual-stages-per-pipeline-rank");
  if (layers_per_virtual_stage > 0) {
    const long long pp = keys.count("model.pipeline_model_parallel_size") ? keys["model.pipeline_model_parallel_size"].as<long long>() : 1;
    const long long L = keys["model.num_layers"].as<long long>();
    if (pp <= 1 || L % (pp * layers_per_virtual_stage) != 0)
      throw std::invalid_argument("--num-layers-per-virtual-pipeline-stage " + std::to_string(layers_per_virtual_stage) +
                                  ": num_layers (" + std::to_string(L) + ") must divide by pp x it (pp " + std::to_string(pp) + ")");
    keys["model.virtual_pipeline_model_parallel_size"] = L / (pp * layers_per_virtual_stage);
  }
  YAML::Node root;
  root["name"] = cluster.name;
  root["description"] = "imported from a Megatron-LM command line (hcpsim import megatron)";
  for (const auto& [k, v] : keys) {
    const std::size_t dot = k.find('.');
    root[k.substr(0, dot)][k.substr(dot + 1)] = v;
  }
  root["cluster"]["preset"] = cluster.preset;
  root["cluster"]["nodes"] = cluster.nodes;
  if (cluster.gpus_per_node > 0) root["cluster"]["gpus_per_node"] = cluster.gpus_per_node;
  YAML::Emitter e;
  e << root;
  out.yaml = std::string(e.c_str()) + "\n";
  return out;
}

}  // namespace hcpsim::planning
