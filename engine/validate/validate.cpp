// Validation rules 1-9 of docs/scenario.md "Rules". Messages quote Megatron-LM, Megatron-Bridge or Transformer
// Engine where those have their own text for the rule (docs/scenario.md "Rules").
#include "engine/validate/validate.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/scenario/pipeline_split.h"
#include "engine/validate/feasibility.h"
#include "engine/validate/field_ranges.h"
#include "engine/validate/placement_rules.h"
#include "engine/validate/rule_checker.h"
#include "engine/validate/validate_hyperparallel.h"
#include "engine/validate/validate_knobs.h"
#include "engine/validate/validate_without_placement.h"

namespace hcpsim {

namespace {

using namespace validate_rules;

std::string py_list(const std::vector<int>& v) {   // Python's repr of a list of ints: "[4, 2]"
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

void check_sizes(const Scenario& s, Checker& c) {
  const auto& m = s.model;
  const int tp = s.tp(), cp = s.cp(), pp = s.pp(), W = s.world_size();
  const long long model_size = static_cast<long long>(tp) * cp * pp;
  // Rule 1 (Megatron-Core initialize_model_parallel RuntimeError).
  if (model_size > 0 && W % model_size != 0) {
    std::vector<std::string> hints;
    const long long tp_pp = static_cast<long long>(tp) * pp;
    const long long per = W / tp_pp;
    std::string valid;
    for (long long x = 1; x <= per && W % tp_pp == 0; ++x)
      if (per % x == 0) valid += (valid.empty() ? "" : ", ") + std::to_string(x);
    if (!valid.empty()) hints.push_back("with tp=" + std::to_string(tp) + " pp=" + std::to_string(pp) +
                                        " on " + std::to_string(W) + " GPUs, context_parallel_size can be " + valid);
    int n = s.cluster.nodes;
    while (n < s.cluster.nodes + 4096 && (static_cast<long long>(n) * s.cluster.gpus_per_node) % model_size != 0) ++n;
    hints.push_back("or use cluster.nodes=" + std::to_string(n) + " (world size " +
                    std::to_string(n * s.cluster.gpus_per_node) + ")");
    c.error("model.context_parallel_size", "world_size (" + std::to_string(W) + ") is not divisible by " +
                                               std::to_string(model_size) + " (tp*cp*pp)", hints);
  }
  // Rule 2 (TransformerConfig ValueErrors).
  if (m.num_attention_heads > 0 && m.num_attention_heads % tp != 0)
    c.error("model.num_attention_heads", "num_attention_heads (" + std::to_string(m.num_attention_heads) +
                                             ") must be a multiple of tensor_model_parallel_size (" +
                                             std::to_string(tp) + ").");
  const int g = m.num_query_groups;
  if (g > 0 && g % tp != 0 && tp % g != 0)
    c.error("model.num_query_groups", "num_query_groups (" + std::to_string(g) +
                                          ") must be a multiple or divisor of tensor_model_parallel_size (" +
                                          std::to_string(tp) + ").");
  // Rule 3 (TE DotProductAttention).
  if (g > 0 && m.num_attention_heads > 0 && m.num_attention_heads % g != 0)
    c.error("model.num_query_groups", "The number of attention heads must be divisible by the number of GQA groups!",
            {"num_attention_heads = " + std::to_string(m.num_attention_heads) + ", num_query_groups = " + std::to_string(g)});
  if (m.kv_channels == 0 && m.num_attention_heads > 0 && m.hidden_size % m.num_attention_heads != 0)
    c.error("model.hidden_size", "hidden_size (" + std::to_string(m.hidden_size) +
                                     ") must be divisible by num_attention_heads (" +
                                     std::to_string(m.num_attention_heads) + ") when kv_channels is not given",
            {"set model.kv_channels (the head dimension)"});
  // Rule 4 (Megatron-LM validate_args).
  // (HyperParallel shards contiguously: its own rule is in validate_hyperparallel.cpp.)
  // (DistFlashAttn shards contiguously too: one chunk per CP rank, so a multiple of cp.)
  if (s.distflashattn_cp() && cp > 1 && m.seq_length > 0 && m.seq_length % cp != 0) {
    const long long lo = m.seq_length / cp * cp, hi = lo + cp;
    c.error("model.seq_length",
            "cp_comm_type=dfa splits the sequence into one chunk per CP rank: seq_length (" +
                std::to_string(m.seq_length) + ") must be a multiple of context_parallel_size (" + std::to_string(cp) + ")",
            {"nearest valid: " + (lo > 0 ? std::to_string(lo) + " or " : std::string()) + std::to_string(hi)});
  }
  if (!s.hyperparallel_cp() && !s.distflashattn_cp() && cp > 1 && m.seq_length > 0 && m.seq_length % (2LL * cp) != 0) {
    const long long q = 2LL * cp, lo = m.seq_length / q * q, hi = lo + q;
    std::vector<std::string> hints;
    hints.push_back("seq_length must divide into 2*cp = " + std::to_string(q) + " chunks; nearest valid: " +
                    (lo > 0 ? std::to_string(lo) + " or " : std::string()) + std::to_string(hi));
    c.error("model.seq_length", "seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1.", hints);
  }
  if (s.simulation.layers > m.num_layers && m.num_layers > 0)
    c.error("simulation.layers", "simulation.layers (" + std::to_string(s.simulation.layers) +
                                     ") is larger than model.num_layers (" + std::to_string(m.num_layers) + ")");
}

void check_comm(const Scenario& s, Checker& c) {
  if (s.hyperparallel_cp()) return;   // cp_comm_type does not apply (validate_hyperparallel.cpp)
  const auto& m = s.model;
  const int cp = s.cp();
  const auto& hcp = m.hierarchical_context_parallel_sizes;
  // Rule 5 (Megatron-Bridge _validate_cp_comm_type).
  if (m.cp_comm_type.size() > 1 && static_cast<int>(m.cp_comm_type.size()) != m.num_layers)
    c.error("model.cp_comm_type", "Length of cp_comm_type (" + std::to_string(m.cp_comm_type.size()) +
                                      ") must equal num_layers (" + std::to_string(m.num_layers) + ").",
            {"give one entry per layer, or a single name for all layers"});
  // DistFlashAttn shards the sequence its own way (one contiguous chunk per CP rank), so it cannot share
  // a layer list with the TE types, which need Megatron's dual-chunk shards.
  if (uses(s, own_shards) &&
      std::any_of(m.cp_comm_type.begin(), m.cp_comm_type.end(), [](CpCommType t) { return !schedule::schedule_of(t).own_shards; }))
    c.error("model.cp_comm_type",
            "cp_comm_type 'dfa' (DistFlashAttn) cannot be mixed with other comm types: its contiguous sequence shards "
            "differ from the dual-chunk shards that p2p, a2a, all_gather and a2a+p2p read",
            {"use cp_comm_type: dfa for every layer, or no dfa entry"});
  if (uses(s, own_shards) && m.attn_mask_type != MaskType::Causal)
    c.error("model.cp_comm_type",
            "cp_comm_type 'dfa' (DistFlashAttn) balances the blocks of a causal mask; attn_mask_type is " +
                std::string(to_string(m.attn_mask_type)),
            {"set model.attn_mask_type: causal, or use cp_comm_type: p2p for an unmasked layer"});
  // Rule 6.
  const bool hier = uses(s, hierarchical);
  const int h_t = s.tp() > 0 ? m.num_attention_heads / s.tp() : 0;
  const int g_t = s.kv_heads_per_tp_rank();
  if (hier && hcp.empty()) {
    const int a = largest_a2a_in_node(cp, h_t, g_t, s.tp(), s.cluster.gpus_per_node);
    c.error("model.hierarchical_context_parallel_sizes",
            "hierarchical_context_parallel_sizes must be set when cp_comm_type contains 'a2a+p2p'. Without it, CP "
            "communication is silently disabled and each rank attends only to its local chunk, producing "
            "artificially high throughput but broken training. Example: for cp=16 across 4 nodes of 8 GPUs, set "
            "hierarchical_context_parallel_sizes=[8, 2].",
            {"for this scenario: " + split_hint(std::max(a, 1), cp)});
  }
  if (!hcp.empty()) {
    long long prod = 1;   // saturates: each level is at most the world-size limit, the list has a few
    for (int x : hcp) prod = prod > (1LL << 40) ? prod : prod * x;
    if (prod != cp)
      c.error("model.hierarchical_context_parallel_sizes",
              "Product of hierarchical_context_parallel_sizes " + py_list(hcp) + " (=" + std::to_string(prod) +
                  ") must equal context_parallel_size (=" + std::to_string(cp) + ").");
    if (hier && hcp.size() != 2)
      c.error("model.hierarchical_context_parallel_sizes",
              "CP implementation a2a+p2p requires cp_group = [a2a_cp_group, p2p_cp_group]!",
              {"Transformer Engine's a2a+p2p takes exactly two levels [a2a size, p2p ring size]; got " +
               std::to_string(hcp.size())});
  }
  // Rule 7: heads must split evenly over the a2a group.
  if (uses(s, whole_cp_a2a) && cp > 1 && h_t > 0 && (h_t % cp != 0 || g_t % cp != 0)) {
    const int a = largest_a2a(cp, h_t, g_t);
    std::vector<std::string> hints;
    if (a > 1)
      hints.push_back("the largest a2a size that fits is " + std::to_string(a) + "; to reach cp=" +
                      std::to_string(cp) + " (scaling beyond KV heads) use " + split_hint(a, cp));
    else
      hints.push_back("no a2a size > 1 divides both head counts; use cp_comm_type=p2p");
    c.error("model.cp_comm_type",
            "cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V. Found num_heads_q = " +
                std::to_string(h_t) + ", num_heads_kv = " + std::to_string(g_t) + ", cp_size = " +
                std::to_string(cp) + ".",
            hints);
  }
  if (hier && hcp.size() == 2 && hcp[0] > 0 && h_t > 0 && (h_t % hcp[0] != 0 || g_t % hcp[0] != 0)) {
    const int a = largest_a2a(cp, h_t, g_t);
    c.error("model.hierarchical_context_parallel_sizes",
            "cp_comm_type='a2a+p2p' requires num_heads % a2a_size == 0 for Q, K, V. Found num_heads_q = " +
                std::to_string(h_t) + ", num_heads_kv = " + std::to_string(g_t) + ", a2a_size = " +
                std::to_string(hcp[0]) + " (Transformer Engine has no explicit check; its a2a reshape fails)",
            {a > 1 ? "the largest a2a size that fits is " + std::to_string(a) + "; to reach cp=" + std::to_string(cp) +
                         " (scaling beyond KV heads) use hierarchical_context_parallel_sizes=[" + std::to_string(a) +
                         ", " + std::to_string(cp / a) + "]"
                   : std::string("no a2a size > 1 divides both head counts; use cp_comm_type=p2p")});
  }
  // Rule 8 (Megatron-Bridge decentralized process groups).
  if (s.dist.use_decentralized_pg && (!hcp.empty() || hier))
    c.error("dist.use_decentralized_pg",
            "Decentralized process groups (use_decentralized_pg=True) do not support "
            "hierarchical_context_parallel_sizes. Use cp_comm_type='a2a' or 'p2p' instead, or set "
            "use_decentralized_pg=False to use the MPU path which supports 'a2a+p2p'.");
}

// Rule 10: the training step (batch, pipeline schedule, recomputation, FP8). Messages quote
// Megatron-LM's argument checks where it has one.
void check_step(const Scenario& s, Checker& c) {
  const auto& m = s.model;
  const int pp = s.pp(), vpp = s.vpp(), dp = s.dp(), mbs = s.train.micro_batch_size;
  if (vpp > 1 && pp <= 1)
    c.error("model.virtual_pipeline_model_parallel_size",
            "virtual_pipeline_model_parallel_size (" + std::to_string(vpp) +
                ") needs pipeline_model_parallel_size > 1: the interleaved schedule splits each pipeline rank's layers",
            {"remove virtual_pipeline_model_parallel_size, or set pipeline_model_parallel_size >= 2"});
  if (uneven_pipeline_split(m)) {
    if (const auto pr = pipeline_split_problem(m)) c.error(pr->field, pr->message, pr->hints);
  } else if (m.num_layers > 0 && pp > 0 && vpp > 0 && m.num_layers % (static_cast<long long>(pp) * vpp) != 0) {
    std::string valid;
    for (int v = 1; v <= m.num_layers; ++v)
      if (m.num_layers % (static_cast<long long>(pp) * v) == 0) valid += (valid.empty() ? "" : ", ") + std::to_string(v);
    std::vector<std::string> hints;
    if (!valid.empty()) hints.push_back("with pp=" + std::to_string(pp) + ", virtual_pipeline_model_parallel_size can be " + valid);
    else hints.push_back("pipeline_model_parallel_size must divide num_layers (" + std::to_string(m.num_layers) + ")");
    hints.push_back("or split unevenly: decoder_first_pipeline_num_layers / decoder_last_pipeline_num_layers (docs/scenario.md)");
    c.error(vpp > 1 ? "model.virtual_pipeline_model_parallel_size" : "model.pipeline_model_parallel_size",
            "num_layers (" + std::to_string(m.num_layers) + ") must be divisible by pipeline_model_parallel_size x "
            "virtual_pipeline_model_parallel_size (" + std::to_string(pp) + " x " + std::to_string(vpp) + ")",
            hints);
  }
  if (dp > 0 && s.train.global_batch_size > 0) {
    const long long per = static_cast<long long>(mbs) * dp;
    if (s.train.global_batch_size % per != 0) {
      const long long lo = s.train.global_batch_size / per * per;
      c.error("train.global_batch_size",
              "global batch size (" + std::to_string(s.train.global_batch_size) +
                  ") is not divisible by micro batch size (" + std::to_string(mbs) +
                  ") times data parallel size (" + std::to_string(dp) + ")",
              {"nearest valid: " + (lo > 0 ? std::to_string(lo) + " or " : std::string()) + std::to_string(lo + per)});
    }
  }
  const int micro = s.micro_batches();
  if (vpp > 1 && pp > 1 && micro > 0 && micro % pp != 0 && s.train.mode == TrainMode::Train)
    c.error("train.global_batch_size",
            "number of microbatches (" + std::to_string(micro) +
                ") is not divisible by pipeline-model-parallel-size (" + std::to_string(pp) +
                ") when using interleaved schedule",
            {"micro-batches = global_batch_size / (micro_batch_size x dp); make it a multiple of " + std::to_string(pp) +
             ", e.g. global_batch_size=" + std::to_string(static_cast<long long>(pp) * mbs * std::max(1, dp) *
                                                          std::max(1, (micro + pp - 1) / pp))});
  int layers_per_chunk = pp > 0 && vpp > 0 ? m.num_layers / (pp * vpp) : 0;
  if (uneven_pipeline_split(m) && !pipeline_split_problem(m)) {   // the largest chunk of the uneven split
    layers_per_chunk = 0;
    for (const auto& chunks : pipeline_split(m))
      for (int n : chunks) layers_per_chunk = std::max(layers_per_chunk, n);
  }
  const bool full = m.recompute_granularity == RecomputeGranularity::Full;
  if (!full && s.locations.count("model.recompute_method") > 0)
    c.error("model.recompute_method", "recompute method is not yet supported for selective recomputing granularity",
            {"recompute_method and recompute_num_layers apply to recompute_granularity: full"});
  if (full && layers_per_chunk > 0 && m.recompute_num_layers > layers_per_chunk)
    c.error("model.recompute_num_layers",
            "recompute_num_layers (" + std::to_string(m.recompute_num_layers) + ") is larger than the " +
                std::to_string(layers_per_chunk) + " layers of one pipeline (virtual) stage",
            {"valid range: 1.." + std::to_string(layers_per_chunk)});
  if (s.fp8_enabled() && s.cluster.gpu.fp8_flops <= 0)
    c.error("model.fp8",
            "fp8 '" + m.fp8 + "' needs FP8 tensor cores, but GPU '" + s.cluster.gpu.name + "' has no FP8 peak",
            {"use a Hopper or Blackwell GPU preset (h100-sxm, h200-sxm, b200, gb200) or set cluster.gpu.fp8_tflops"});
  if (m.tp_comm_overlap && (s.tp() < 2 || !m.sequence_parallel))
    c.error("model.tp_comm_overlap", "tp_comm_overlap overlaps the sequence-parallel collectives of tp > 1",
            {"set tensor_model_parallel_size >= 2 and sequence_parallel: true, or tp_comm_overlap: false"});
  if (m.overlap_p2p_comm.value_or(false) && s.vpp() < 2)
    c.error("model.overlap_p2p_comm",
            "overlap_p2p_comm overlaps the sends of the interleaved pipeline schedule; without it (vpp " +
                std::to_string(s.vpp()) + ") Megatron-LM turns it off and every send blocks its stage",
            {"set virtual_pipeline_model_parallel_size >= 2 (with pp >= 2), or overlap_p2p_comm: false, or leave it unset"});
  if (m.fp8_dot_product_attention && !s.fp8_enabled())
    c.error("model.fp8_dot_product_attention", "fp8_dot_product_attention needs fp8 to be set",
            {"set model.fp8: hybrid (or e4m3)"});
}

void check_dist_and_faults(const Scenario& s, Checker& c) {
  if (s.dist.order != "tp-cp-ep-dp-pp" && s.dist.order != "tp-cp-ep-pp-dp")
    c.error("dist.order", "unsupported order '" + s.dist.order + "' (valid values: tp-cp-ep-dp-pp, tp-cp-ep-pp-dp)",
            {"Megatron uses tp-cp-ep-dp-pp, or tp-cp-ep-pp-dp with use_tp_pp_dp_mapping"});
  const int W = s.world_size();
  for (std::size_t i = 0; i < s.cluster.faults.size(); ++i) {
    const auto& f = s.cluster.faults[i];
    const std::string p = "cluster.faults[" + std::to_string(i) + "]";
    if (f.kind == Fault::Kind::Straggler) {
      if (f.rank >= W)
        c.error(p + ".rank", "rank " + std::to_string(f.rank) + " is out of range (world size " + std::to_string(W) +
                                 ", ranks 0.." + std::to_string(W - 1) + ")");
    } else {
      if (f.node >= s.cluster.nodes)
        c.error(p + ".node", "node " + std::to_string(f.node) + " is out of range (nodes 0.." +
                                 std::to_string(s.cluster.nodes - 1) + ")");
      if (f.nic >= s.cluster.nics_per_node)
        c.error(p + ".nic", "nic " + std::to_string(f.nic) + " is out of range (nics 0.." +
                                std::to_string(s.cluster.nics_per_node - 1) + ")");
    }
  }
}

}  // namespace

Diagnostics validate(const Scenario& s) {
  Diagnostics d = validate_without_placement(s);
  if (!d.has_errors()) d.append(check_placement(s));
  return d;
}

Diagnostics validate_without_placement(const Scenario& s, FoldMemo* memo) {
  Diagnostics ranges = check_field_ranges(s);
  if (ranges.has_errors()) return ranges;   // the rules below assume every field is in its range
  Checker c(s);
  check_sizes(s, c);
  check_comm(s, c);
  check_dist_and_faults(s, c);
  check_step(s, c);
  Diagnostics d = c.take();
  d.append(validate_hyperparallel(s));
  d.append(validate_knobs(s));
  if (!d.has_errors()) d.append(check_feasibility(s, memo));
  return d;
}

}  // namespace hcpsim
