#include "engine/scenario/schema.h"

#include <algorithm>
#include <set>

namespace hcpsim::schema {

const std::vector<std::string>& all_paths() {
  static const std::vector<std::string> paths{
      "name", "description",
      "model", "model.num_layers", "model.hidden_size", "model.ffn_hidden_size",
      "model.num_attention_heads", "model.num_query_groups", "model.kv_channels",
      "model.seq_length", "model.attn_mask_type", "model.params_dtype",
      "model.tensor_model_parallel_size", "model.pipeline_model_parallel_size",
      "model.context_parallel_size", "model.cp_comm_type",
      "model.hierarchical_context_parallel_sizes", "model.sequence_parallel",
      "model.virtual_pipeline_model_parallel_size", "model.recompute_granularity", "model.recompute_method",
      "model.recompute_num_layers", "model.elementwise_ops", "model.fp8", "model.fp8_recipe", "model.fp8_dot_product_attention",
      "model.tp_comm_overlap", "model.overlap_p2p_comm", "model.decoder_first_pipeline_num_layers", "model.decoder_last_pipeline_num_layers",
      "model.account_for_embedding_in_pipeline_split", "model.account_for_loss_in_pipeline_split",
      "model.vocab_size", "model.untie_embeddings_and_output_weights",
      "model.bf16", "model.fp16", "model.gated_linear_unit",
      "model.dsa", "model.dsa.index_topk", "model.dsa.index_n_heads", "model.dsa.index_head_dim",
      "train", "train.micro_batch_size", "train.global_batch_size", "train.mode",
      "ddp", "ddp.use_distributed_optimizer", "ddp.overlap_grad_reduce", "ddp.overlap_param_gather", "ddp.shard_parameters",
      "ddp.grad_reduce_in_fp32",
      "dist", "dist.use_decentralized_pg", "dist.order",
      "cluster", "cluster.preset", "cluster.nodes", "cluster.gpus_per_node", "cluster.gpu",
      "cluster.gpu.name", "cluster.gpu.bf16_tflops", "cluster.gpu.fp8_tflops", "cluster.gpu.hbm_bandwidth",
      "cluster.gpu.memory", "cluster.gpu.sm_count",
      "cluster.intra_node", "cluster.intra_node.bandwidth", "cluster.intra_node.latency", "cluster.intra_node.nvls",
      "cluster.inter_node", "cluster.inter_node.nic_bandwidth", "cluster.inter_node.nics_per_node",
      "cluster.inter_node.latency", "cluster.inter_node.topology", "cluster.inter_node.oversubscription",
      "cluster.efficiency", "cluster.efficiency.attention_forward",
      "cluster.efficiency.attention_backward", "cluster.efficiency.gemm", "cluster.efficiency.memory",
      "cluster.efficiency.intra_node_link", "cluster.efficiency.inter_node_link",
      "cluster.efficiency.attention_kernel", "cluster.efficiency.comm_hbm_interference",
      "cluster.efficiency.nccl_launch", "cluster.efficiency.ring_step_sync",
      "cluster.efficiency.model_terms", "cluster.efficiency.model_terms.all",
      "cluster.efficiency.model_terms.comm_compute_interference",
      "cluster.efficiency.model_terms.bandwidth_curves", "cluster.efficiency.model_terms.host_overheads",
      "cluster.efficiency.model_terms.memory_operators", "cluster.efficiency.model_terms.attention_shapes",
      "cluster.efficiency.model_terms.nccl_rails", "cluster.efficiency.model_terms.nccl_ring_latency",
      "cluster.efficiency.model_terms.nccl_protocols", "cluster.efficiency.model_terms.nccl_p2p_channels",
      "cluster.efficiency.model_terms.gemm_shapes", "cluster.efficiency.model_terms.fp8_work",
      "cluster.efficiency.model_terms.grad_norm",
      "cluster.calibration",
      "cluster.faults", "cluster.faults[].rank", "cluster.faults[].slowdown", "cluster.faults[].node",
      "cluster.faults[].nic", "cluster.faults[].bandwidth_factor", "cluster.faults[].failed",
      "simulation", "simulation.backend", "simulation.passes", "simulation.layers", "simulation.fold",
      "hyperparallel", "hyperparallel.style", "hyperparallel.ulysses_degree", "hyperparallel.load_balance",
      "hyperparallel.layout", "hyperparallel.mesh_dim_names"};
  return paths;
}

bool is_known_path(const std::string& path) {
  const auto& p = all_paths();
  return std::find(p.begin(), p.end(), path) != p.end();
}

std::vector<std::string> child_keys(const std::string& parent) {
  std::vector<std::string> out;
  const std::string prefix = parent.empty() ? "" : parent + ".";
  for (const auto& p : all_paths()) {
    if (p.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = p.substr(prefix.size());
    if (rest.empty() || rest.find('.') != std::string::npos) continue;
    if (rest.find("[]") != std::string::npos) continue;
    out.push_back(rest);
  }
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.size() > 64) return "";   // no field name is that long; keeps the edit distance cheap
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_d = limit + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string best = closest(word, candidates);
  if (!best.empty()) return "did you mean '" + best + "'?";
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& c : candidates) ranked.emplace_back(edit_distance(word, c), c);
  std::sort(ranked.begin(), ranked.end());
  std::string list;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) list += (i ? ", " : "") + ranked[i].second;
  return "nearest valid keys: " + list;
}

std::string unmodelled_bridge_field(const std::string& path) {
  // Sections of a Megatron-Bridge ConfigContainer that describe nothing hcpsim predicts.
  static const std::vector<std::pair<std::string, std::string>> sections{
      {"optimizer", "the optimizer section"}, {"scheduler", "the learning-rate scheduler section"},
      {"checkpoint", "the checkpoint section"}, {"logger", "the logger section"},
      {"tokenizer", "the tokenizer section"},   {"dataset", "the dataset section"},
      {"rng", "the random-number section"},     {"profiling", "the profiling section"},
      {"mixed_precision", "the mixed-precision recipe section (hcpsim prices model.params_dtype, model.bf16 / "
                          "model.fp16 and model.fp8)"},
      {"comm_overlap", "the communication-overlap section (hcpsim reads model.tp_comm_overlap, model.overlap_p2p_comm and ddp.overlap_grad_reduce / "
                       "ddp.overlap_param_gather)"}};
  // Fields of model/train/dist that change numerics or bookkeeping, not the CP schedule or its cost.
  static const std::vector<std::pair<std::string, std::string>> fields{
      {"model.hidden_dropout", "dropout"},
      {"model.attention_dropout", "dropout"},
      {"model.normalization", "the normalization kind"},
      {"model.layernorm_epsilon", "the normalization epsilon"},
      {"model.position_embedding_type", "the position embedding"},
      {"model.rotary_base", "the rotary embedding base"},
      {"model.rotary_percent", "the rotary embedding fraction"},
      {"model.init_method_std", "weight initialisation"},
      {"model.share_embeddings_and_output_weights", "embedding weight sharing"},
      {"model.make_vocab_size_divisible_by", "vocabulary padding"},
      {"model.apply_rope_fusion", "kernel fusion switches"},
      {"model.bias_activation_fusion", "kernel fusion switches"},
      {"model.masked_softmax_fusion", "kernel fusion switches"},
      {"model.gradient_accumulation_fusion", "kernel fusion switches"},
      {"model.cross_entropy_loss_fusion", "kernel fusion switches"},
      {"model.bias_dropout_fusion", "kernel fusion switches"},
      {"model.persist_layer_norm", "kernel fusion switches"},
      {"train.train_iters", "the number of training iterations"},
      {"train.eval_iters", "evaluation"},
      {"train.eval_interval", "evaluation"},
      {"train.manual_gc", "garbage-collection settings"}};
  for (const auto& [s, what] : sections)
    if (path == s || path.compare(0, s.size() + 1, s + ".") == 0) return what;
  for (const auto& [f, what] : fields)
    if (path == f) return what;
  return "";
}

}  // namespace hcpsim::schema
