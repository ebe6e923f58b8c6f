#pragma once
// Small training scenarios on which the composed step (compose_step over one layer's times) is
// checked against the whole-step task graph (build_step_graph), and the two measurements. Shared
// by the analytic test (test_step_graph.cpp) and the SimGrid one (test_step_graph_simgrid.cpp).
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/app/simulate.h"
#include "engine/backend/backend.h"
#include "engine/cost/cost_model.h"
#include "engine/layout/rank_layout.h"
#include "engine/step/step_graph.h"

namespace hcpsim::step::testing {

struct StepCase {
  std::string name;
  int pp = 2, vpp = 1, micro_batches = 4;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  bool distributed_optimizer = true;
  RecomputeGranularity recompute = RecomputeGranularity::None;
  CpCommType comm = CpCommType::P2P;
  int nics_per_node = 8;   // 8: one NIC per GPU (rail), fewer: the stage's transfers share NICs
  ElementwiseOps elementwise = ElementwiseOps::None;
  std::string fp8{};       // model.fp8 ("" = off)
  bool tp_comm_overlap = false;
  std::optional<bool> overlap_p2p_comm{};   // unset: Megatron-LM's choice by schedule
};

// The case's name as a test name (gtest allows letters, digits and '_').
inline std::string step_case_test_name(const StepCase& c) {
  std::string n = c.name;
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

// tp 2 x cp 2 x dp 2 = one 8-GPU node per pipeline stage; a 1.5B-class GQA model with SwiGLU
// (whole layers: GEMMs, TP collectives and CP attention), 8K tokens, 8 layers.
inline Scenario step_case_scenario(const StepCase& c) {
  Scenario s;
  s.name = "step-graph-" + c.name;
  s.model.num_layers = 8;
  s.model.hidden_size = 2048;
  s.model.ffn_hidden_size = 8192;
  s.model.num_attention_heads = 16;
  s.model.num_query_groups = 4;
  s.model.kv_channels = 128;
  s.model.seq_length = 8192;
  s.model.vocab_size = 32768;
  s.model.tensor_model_parallel_size = 2;
  s.model.context_parallel_size = 2;
  s.model.pipeline_model_parallel_size = c.pp;
  s.model.virtual_pipeline_model_parallel_size = c.vpp;
  s.model.sequence_parallel = true;
  s.model.cp_comm_type = {c.comm};
  s.model.recompute_granularity = c.recompute;
  s.model.elementwise_ops = c.elementwise;
  s.model.fp8 = c.fp8;
  s.model.tp_comm_overlap = c.tp_comm_overlap;
  s.model.overlap_p2p_comm = c.overlap_p2p_comm;
  s.cluster.nodes = c.pp;   // tp x cp x dp = 8 GPUs = one node per stage
  s.cluster.gpus_per_node = 8;
  s.cluster.nics_per_node = c.nics_per_node;
  s.train.micro_batch_size = 1;
  s.train.global_batch_size = c.micro_batches * 2;   // dp = 2
  s.ddp.use_distributed_optimizer = c.distributed_optimizer;
  s.ddp.overlap_grad_reduce = c.overlap_grad_reduce;
  s.ddp.overlap_param_gather = c.overlap_param_gather;
  return s;
}

// The cases of the check: pp 2 and 4, m 4 and 8, interleaving, with and without DP overlap.
inline std::vector<StepCase> step_cases() {
  std::vector<StepCase> v;
  v.push_back({.name = "pp2-m4"});
  v.push_back({.name = "pp2-m8", .micro_batches = 8});
  v.push_back({.name = "pp4-m4", .pp = 4});
  v.push_back({.name = "pp4-m8", .pp = 4, .micro_batches = 8});
  v.push_back({.name = "pp2-vpp2-m4", .vpp = 2});
  v.push_back({.name = "pp4-vpp2-m8", .pp = 4, .vpp = 2, .micro_batches = 8});
  v.push_back({.name = "pp2-m4-no-overlap", .overlap_grad_reduce = false, .overlap_param_gather = false});
  v.push_back({.name = "pp4-vpp2-m8-no-overlap", .pp = 4, .vpp = 2, .micro_batches = 8,
               .overlap_grad_reduce = false, .overlap_param_gather = false});
  v.push_back({.name = "pp4-m8-grad-overlap-only", .pp = 4, .micro_batches = 8, .overlap_param_gather = false});
  v.push_back({.name = "pp2-m4-allreduce", .overlap_grad_reduce = false, .distributed_optimizer = false});
  v.push_back({.name = "pp2-m4-full-recompute", .recompute = RecomputeGranularity::Full});
  v.push_back({.name = "pp2-m4-a2a", .comm = CpCommType::A2A});
  // DistFlashAttn's checkpointing: the graph recomputes each layer without its CP attention.
  v.push_back({.name = "pp2-m4-non-attention-recompute", .recompute = RecomputeGranularity::NonAttention});
  // torchtitan's op-level checkpointing: every second matmul and the elementwise kernels again.
  v.push_back({.name = "pp2-m4-selective-op-recompute", .recompute = RecomputeGranularity::SelectiveOp,
               .elementwise = ElementwiseOps::Fused});
  v.push_back({.name = "pp4-m8-2nics", .pp = 4, .micro_batches = 8, .nics_per_node = 2});
  v.push_back({.name = "pp4-m8-1nic", .pp = 4, .micro_batches = 8, .nics_per_node = 1});
  // The layers' elementwise kernels, in every forward, recomputed forward and backward.
  v.push_back({.name = "pp2-m4-fused-elementwise", .elementwise = ElementwiseOps::Fused});
  v.push_back({.name = "pp2-m4-unfused-elementwise-full-recompute", .recompute = RecomputeGranularity::Full,
               .elementwise = ElementwiseOps::Unfused});
  v.push_back({.name = "pp2-m4-unfused-elementwise-non-attention", .recompute = RecomputeGranularity::NonAttention,
               .elementwise = ElementwiseOps::Unfused});
  // FP8: the casts around the FP8 GEMMs in every pass, the weight cast after the optimizer.
  v.push_back({.name = "pp2-m4-fp8-fused-elementwise", .elementwise = ElementwiseOps::Fused, .fp8 = "hybrid"});
  v.push_back({.name = "pp2-m4-fp8-full-recompute", .recompute = RecomputeGranularity::Full, .fp8 = "hybrid"});
  // TE userbuffers: the sequence-parallel collectives pipelined with their GEMMs' chunks.
  v.push_back({.name = "pp2-m4-tp-comm-overlap", .tp_comm_overlap = true});
  // overlap_p2p_comm off under interleaving: every send blocks its stage (plain 1F1B always does).
  v.push_back({.name = "pp4-vpp2-m8-blocking-sends", .pp = 4, .vpp = 2, .micro_batches = 8, .overlap_p2p_comm = false});
  return v;
}

// Where the composed step is known to miss 1 % on a backend with contention (docs/planning.md):
// with interleaving every stage sends and receives in both directions around the ring, and its
// transfers saturate the NICs the whole stage shares; the composed step's queues of sends and
// receives then order them differently from the ranks' NCCL streams.
inline std::vector<StepCase> shared_nic_limit_cases() {
  std::vector<StepCase> v;
  v.push_back({.name = "pp4-vpp2-m8-2nics", .pp = 4, .vpp = 2, .micro_batches = 8, .nics_per_node = 2});
  v.push_back({.name = "pp4-vpp2-m8-1nic", .pp = 4, .vpp = 2, .micro_batches = 8, .nics_per_node = 1});
  return v;
}

// Earliest start and latest end of every task the backend ran.
struct SpanSink : TraceSink {
  double start_s = 1e300, end_s = -1e300;
  std::size_t tasks = 0;
  void record(const TraceEvent&) override {}
  void record_task(const TaskGraph&, const Task&, double start, double end) override {
    start_s = std::min(start_s, start);
    end_s = std::max(end_s, end);
    ++tasks;
  }
};

struct StepComparison {
  double composed_s = 0;     // compose_step over the layer times `backend` predicted
  double composed_alone_s = 0;   // the same with every transfer timed alone (no link sharing)
  double full_graph_s = 0;   // makespan of the whole-step graph on `backend`
  std::size_t full_graph_tasks = 0;
  double difference() const { return (composed_s - full_graph_s) / full_graph_s; }
};

inline StepComparison compare_step(const Scenario& s, Backend& backend) {
  StepComparison c;
  Report layer;
  c.composed_s = predict_step(s, backend, &layer).time_s;
  c.composed_alone_s = compose_step(s, layer_times_of(layer)).time_s;
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_step_graph(s, layout);
  const CostModel cost(s);
  SpanSink sink;
  backend.run(g, RunContext{s, layout, cost, {}}, sink);
  c.full_graph_tasks = sink.tasks;
  c.full_graph_s = sink.end_s - sink.start_s;
  return c;
}

}  // namespace hcpsim::step::testing
