#include "engine/planning/plan_emit.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iterator>
#include <stdexcept>

#include "engine/scenario/overrides.h"
#include "engine/scenario/pipeline_split.h"

namespace hcpsim::planning {

std::vector<std::string> megatron_arguments(const Scenario& s) {
  const ModelConfig& m = s.model;
  std::vector<std::string> a;
  auto num = [&](const char* flag, long long v) {
    a.push_back(flag);
    a.push_back(std::to_string(v));
  };
  num("--num-layers", m.num_layers);
  num("--hidden-size", m.hidden_size);
  if (m.ffn_hidden_size > 0) num("--ffn-hidden-size", m.ffn_hidden_size);
  num("--num-attention-heads", m.num_attention_heads);
  if (m.num_query_groups > 0 && m.num_query_groups != m.num_attention_heads) {
    a.push_back("--group-query-attention");
    num("--num-query-groups", m.num_query_groups);
  }
  if (m.kv_channels > 0) num("--kv-channels", m.kv_channels);
  num("--seq-length", m.seq_length);
  num("--max-position-embeddings", m.seq_length);
  a.push_back("--swiglu");
  if (m.untie_embeddings_and_output_weights) a.push_back("--untie-embeddings-and-output-weights");
  a.push_back(m.params_dtype == DType::FP16 ? "--fp16" : "--bf16");
  if (!m.fp8.empty()) {
    a.insert(a.end(), {"--fp8-format", m.fp8, "--fp8-recipe", m.fp8_recipe});
    if (m.fp8_dot_product_attention) a.push_back("--fp8-dot-product-attention");
  }
  if (m.attn_mask_type == MaskType::NoMask) a.insert(a.end(), {"--attention-mask-type", "no_mask"});
  num("--tensor-model-parallel-size", m.tensor_model_parallel_size);
  if (m.sequence_parallel) a.push_back("--sequence-parallel");
  if (m.tp_comm_overlap) a.push_back("--tp-comm-overlap");
  num("--context-parallel-size", m.context_parallel_size);
  if (m.context_parallel_size > 1 && !s.hyperparallel_cp()) {
    a.push_back("--cp-comm-type");
    for (CpCommType t : m.cp_comm_type) a.push_back(to_string(t));
    if (!m.hierarchical_context_parallel_sizes.empty()) {
      a.push_back("--hierarchical-context-parallel-sizes");
      for (int x : m.hierarchical_context_parallel_sizes) a.push_back(std::to_string(x));
    }
  }
  num("--pipeline-model-parallel-size", m.pipeline_model_parallel_size);
  if (s.dist.order == "tp-cp-ep-pp-dp") a.push_back("--use-tp-pp-dp-mapping");
  if (m.decoder_first_pipeline_num_layers) num("--decoder-first-pipeline-num-layers", *m.decoder_first_pipeline_num_layers);
  if (m.decoder_last_pipeline_num_layers) num("--decoder-last-pipeline-num-layers", *m.decoder_last_pipeline_num_layers);
  if (m.account_for_embedding_in_pipeline_split) a.push_back("--account-for-embedding-in-pipeline-split");
  if (m.account_for_loss_in_pipeline_split) a.push_back("--account-for-loss-in-pipeline-split");
  // Megatron-LM takes the virtual pipeline size of an uneven split as stages per rank only.
  if (m.virtual_pipeline_model_parallel_size > 1 && uneven_pipeline_split(m))
    num("--num-virtual-stages-per-pipeline-rank", m.virtual_pipeline_model_parallel_size);
  else if (m.virtual_pipeline_model_parallel_size > 1)
    num("--num-layers-per-virtual-pipeline-stage",
        m.num_layers / (m.pipeline_model_parallel_size * m.virtual_pipeline_model_parallel_size));
  if (m.overlap_p2p_comm == false) a.push_back("--no-overlap-p2p-communication");   // Megatron-LM's default is on
  if (m.recompute_granularity == RecomputeGranularity::Selective || m.recompute_granularity == RecomputeGranularity::Full) {
    a.insert(a.end(), {"--recompute-granularity", to_string(m.recompute_granularity)});
    if (m.recompute_granularity == RecomputeGranularity::Full) {
      a.insert(a.end(), {"--recompute-method", to_string(m.recompute_method)});
      num("--recompute-num-layers", m.recompute_num_layers);
    }
  }
  num("--micro-batch-size", s.train.micro_batch_size);
  num("--global-batch-size", s.global_batch());
  if (s.ddp.use_distributed_optimizer) a.push_back("--use-distributed-optimizer");
  if (s.ddp.overlap_grad_reduce) a.push_back("--overlap-grad-reduce");
  if (s.ddp.overlap_param_gather) a.push_back("--overlap-param-gather");
  num("--padded-vocab-size", m.vocab_size);
  return a;
}

std::vector<std::string> bridge_overrides(const std::vector<std::string>& scenario_overrides) {
  // Bridge has model.*, train.* and ddp.* with hcpsim's names, but for the uneven split's stage sizes
  // (TransformerConfig's num_layers_in_first/last_pipeline_stage); dist.order and the cluster are hcpsim's.
  static const std::pair<std::string, std::string> kRenamed[] = {
      {"model.decoder_first_pipeline_num_layers=", "model.num_layers_in_first_pipeline_stage="},
      {"model.decoder_last_pipeline_num_layers=", "model.num_layers_in_last_pipeline_stage="}};
  // hcpsim's own values and keys: Megatron-Core's recompute_granularity is full or selective.
  static const char* const kNotBridge[] = {"model.recompute_granularity=selective_op",
                                           "model.recompute_granularity=non_attention", "ddp.shard_parameters="};
  std::vector<std::string> out;
  for (std::string o : scenario_overrides) {
    for (const auto& [ours, bridge] : kRenamed)
      if (o.rfind(ours, 0) == 0) o = bridge + o.substr(ours.size());
    if (std::any_of(std::begin(kNotBridge), std::end(kNotBridge), [&](const char* x) { return o.rfind(x, 0) == 0; }))
      continue;
    if (o.rfind("model.", 0) == 0 || o.rfind("train.", 0) == 0 || o.rfind("ddp.", 0) == 0) out.push_back(o);
  }
  return out;
}

std::vector<std::string> emit_warnings(const Scenario& s) {
  std::vector<std::string> w;
  const RecomputeGranularity g = s.model.recompute_granularity;
  if (g == RecomputeGranularity::SelectiveOp || g == RecomputeGranularity::NonAttention)
    w.push_back(std::string("model.recompute_granularity: ") + to_string(g) +
                (g == RecomputeGranularity::SelectiveOp ? " (torchtitan's op-level checkpointing)"
                                                        : " (DistFlashAttn's recomputation of all but core attention)") +
                " has no Megatron-LM or Bridge setting: the Megatron-LM arguments give no --recompute-granularity and "
                "the Bridge overrides leave recompute_granularity out, so as written the job recomputes nothing");
  if (s.hyperparallel_cp())
    w.push_back(std::string("hyperparallel: MindSpore HyperParallel's CP mode (") + to_string(s.hyperparallel.mode(s.cp())) +
                ", ulysses_degree " + std::to_string(s.hyperparallel.ulysses(s.cp())) +
                ") has no Megatron-LM or Bridge setting: the arguments give the context-parallel size without "
                "--cp-comm-type and the Bridge overrides leave the hyperparallel section out");
  if (s.ddp.shard_parameters)
    w.push_back("ddp.shard_parameters: parameter sharding (ZeRO-3 / FSDP) is not written: set Megatron-FSDP's or "
                "PyTorch FSDP's own options by hand");
  if (s.ddp.grad_reduce_in_fp32 == false && !s.ddp.shard_parameters)
    w.push_back("ddp.grad_reduce_in_fp32: false (gradients reduced in the parameters' dtype) has no Megatron-LM argument: "
                "pretrain_gpt.py reduces bf16 gradients in fp32");
  if (s.dist.order == "tp-cp-ep-pp-dp")
    w.push_back("dist.order: tp-cp-ep-pp-dp is written for Megatron-LM (--use-tp-pp-dp-mapping) but not as a Bridge "
                "override (dist.order is hcpsim's key): set the rank order of the Bridge recipe by hand");
  else if (s.dist.order != "tp-cp-ep-dp-pp")
    w.push_back("dist.order: " + s.dist.order + " has no Megatron-LM argument or Bridge override");
  return w;
}

std::string scenario_file_text(const std::string& base_path, const std::vector<std::string>& overrides,
                               const std::string& name, const std::string& description) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(base_path);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(base_path + ": " + e.what());
  }
  Diagnostics d;
  detail::apply_overrides(root, overrides, d);
  if (d.has_errors()) throw std::runtime_error(base_path + ": an override does not apply: " + d.items().front().message);
  root["name"] = name;
  root["description"] = description;
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string shell_join(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) {
    const bool plain = !a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.=/+,:") ==
                                         std::string::npos;
    if (!s.empty()) s += ' ';
    if (plain) {
      s += a;
      continue;
    }
    s += '\'';
    for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    s += '\'';
  }
  return s;
}

}  // namespace hcpsim::planning
