#include "engine/step/step_model.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/cost/route.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/layout_cache.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/step/model_flops.h"
#include "engine/step/pipeline_schedule.h"
#include "engine/step/parameter_sharding.h"
#include "engine/step/step_collectives.h"
#include "engine/step/step_work.h"

namespace hcpsim::step {
namespace {

// Seconds of one compute kernel timed by the scenario's cost model (GEMM or memory-bound).
// The label names a GEMM's shape and precision (CostModel::gemm_efficiency).
double kernel_s(const CostModel& cost, TaskKind kind, double flops, double bytes, const char* label) {
  TaskGraph g;
  Task t;
  t.kind = kind;
  t.flops = flops;
  t.bytes = bytes;
  const TaskId id = g.add_task(t, label);
  return cost.compute_seconds(g, g.task(id));
}

// Parameter all-gathers before a layer's backward under parameter sharding: a recomputed forward
// gathers again (the checkpoint calls the sharded layer's forward anew), except torchtitan's
// op-level policy, whose recomputation runs inside the block's backward after FSDP2 has gathered
// the block for it.
int gathers_in_backward(const Scenario& s, int recomputed_layers) {
  if (recomputed_layers == 0 || s.model.recompute_granularity == RecomputeGranularity::SelectiveOp) return 1;
  return 2;
}

// Seconds of kernels run one after the other.
double kernels_s(const CostModel& cost, const std::vector<Kernel>& ks) {
  double total = 0;
  for (const Kernel& k : ks) total += kernel_s(cost, k.kind, k.flops, k.bytes, k.label);
  return total;
}

// Seconds of the transfers from stage `from` to stage `to`, one per pipeline group, all at once.
// Alone (no link sharing): the slowest single transfer. With link sharing: each transfer carries
// the bytes of every flow on the busiest link it uses (GPU port, or NIC out / in across nodes).
double boundary_s(const RouteModel& routes, const RankLayout& layout, int from, int to, double bytes,
                  bool link_sharing) {
  const auto& groups = layout.groups(GroupKind::PP);
  std::map<std::tuple<int, long, long>, int> flows;   // (kind, node or rank, nic) -> flows
  auto out_key = [](const Route& r, int src) {
    return r.link_class == LinkClass::IntraNode ? std::tuple<int, long, long>{0, src, 0}
                                                : std::tuple<int, long, long>{2, r.src_node, r.src_nic};
  };
  auto in_key = [](const Route& r, int dst) {
    return r.link_class == LinkClass::IntraNode ? std::tuple<int, long, long>{1, dst, 0}
                                                : std::tuple<int, long, long>{3, r.dst_node, r.dst_nic};
  };
  std::vector<std::tuple<Route, int, int>> pairs;
  for (const auto& g : groups) {
    const int a = g[static_cast<std::size_t>(from)], b = g[static_cast<std::size_t>(to)];
    const Route r = routes.route(a, b);
    if (r.self) continue;
    pairs.emplace_back(r, a, b);
    if (link_sharing) {
      ++flows[out_key(r, a)];
      ++flows[in_key(r, b)];
    }
    if (!link_sharing) break;   // alone: every pipeline group's transfer is alike; the first is enough
  }
  double t = 0;
  for (const auto& [r, a, b] : pairs) {
    const int share = link_sharing ? std::max(flows[out_key(r, a)], flows[in_key(r, b)]) : 1;
    t = std::max(t, routes.transfer_seconds(r, bytes * share, bytes));
  }
  return t;
}

// The stage holding the most layers (the first of equals).
std::size_t busiest_stage(const std::vector<std::vector<int>>& split) {
  std::size_t busiest = 0;
  int most = -1;
  for (std::size_t st = 0; st < split.size(); ++st) {
    int n = 0;
    for (int c : split[st]) n += c;
    if (n > most) {
      most = n;
      busiest = st;
    }
  }
  return busiest;
}

// Recomputation (training): the forward run again inside the backward, for a chunk of n layers.
// Returns the seconds and sets `recomputed` (layers whose elementwise forward `ew_f` runs again);
// `op_recompute_s`: one layer's op-level recomputation (selective_op, step_work.h).
double chunk_recompute_s(const Scenario& s, const LayerTimes& lt, double ew_f, double op_recompute_s, int n,
                         int& recomputed) {
  recomputed = 0;
  double t = 0;
  if (s.train.mode == TrainMode::Prefill) return t;
  switch (s.model.recompute_granularity) {
    case RecomputeGranularity::None: break;
    case RecomputeGranularity::Selective: t = n * lt.attention_forward_s; break;
    case RecomputeGranularity::Full:
      recomputed = s.model.recompute_method == RecomputeMethod::Uniform ? n : std::min(n, std::max(1, s.model.recompute_num_layers));
      t = recomputed * lt.layer_forward_s;
      break;
    case RecomputeGranularity::SelectiveOp:   // every second matmul and the elementwise ops (step_work.h)
      if (lt.whole_layer) {
        recomputed = n;
        t = n * op_recompute_s;
      }
      break;
    case RecomputeGranularity::NonAttention:   // everything but the core attention (attention-only times: nothing)
      recomputed = n;
      t = n * std::max(0.0, lt.layer_forward_s - lt.attention_forward_s);
      break;
  }
  return t + recomputed * ew_f;
}

// The slowest boundary's transfer each way (r.p2p_forward_s / r.p2p_backward_s, NCCL launch
// included); returns the share of the GPU a send takes from the compute it overlaps.
double add_p2p_times(const Scenario& s, const CostModel& cost, const RankLayout& layout, const RouteModel& routes,
                     double p2p_bytes, bool link_sharing, StepReport& r) {
  const int p = s.pp(), v = s.vpp();
  double send_load = 0;
  if (p <= 1) return send_load;
  const auto& pp_group = layout.group_of(GroupKind::PP, 0);
  const int hops = v > 1 ? p : p - 1;   // interleaving also sends from the last stage to the first
  for (int i = 0; i < hops; ++i) {
    const int a = pp_group[static_cast<std::size_t>(i)];
    const int b = pp_group[static_cast<std::size_t>((i + 1) % p)];
    r.p2p_forward_s = std::max(r.p2p_forward_s, boundary_s(routes, layout, i, (i + 1) % p, p2p_bytes, link_sharing));
    r.p2p_backward_s = std::max(r.p2p_backward_s, boundary_s(routes, layout, (i + 1) % p, i, p2p_bytes, link_sharing));
    send_load = std::max({send_load, comm_load(cost, TaskKind::SendRecv, {a, b}, p2p_bytes),
                          comm_load(cost, TaskKind::SendRecv, {b, a}, p2p_bytes)});
  }
  // The receiver sees the data once the send's NCCL call has also paid its host launch.
  r.p2p_forward_s += launch_s(cost, TaskKind::SendRecv);
  r.p2p_backward_s += launch_s(cost, TaskKind::SendRecv);
  return send_load;
}

// A training step: the pipeline `in` replayed, then data parallelism and the optimizer. Fills the
// DP and optimizer fields of `r` and returns the step's seconds.
double training_step_s(const Scenario& s, const CostModel& cost, const RankLayout& layout, const RouteModel& routes,
                       const StepWork& work, const std::vector<std::vector<int>>& split, PipelineInputs& in,
                       StepReport& r) {
  const int p = s.pp();
  double time_s = 0;
  // Data parallelism over the DP x CP group (the ranks that hold the same weights).
  const auto& group = layout.group_of(GroupKind::DP_CP, 0);
  r.dp_group_size = static_cast<int>(group.size());
  const bool dist = s.ddp.use_distributed_optimizer || s.ddp.shard_parameters;
  const TaskKind grad_kind = dist ? TaskKind::ReduceScatter : TaskKind::AllReduce;
  // Each alone, as one NCCL call with its host launch.
  const double rs_ring = ring_s(routes, grad_kind, group, work.grad_reduce_bytes);
  const double rs_launch = rs_ring > 0 ? launch_s(cost, grad_kind) : 0.0;
  r.dp_grad_reduce_s = rs_ring + rs_launch;
  const double ag_ring = dist ? ring_s(routes, TaskKind::AllGather, group, work.param_gather_bytes) : 0.0;
  const double ag_launch = ag_ring > 0 ? launch_s(cost, TaskKind::AllGather) : 0.0;
  r.dp_param_gather_s = ag_ring + ag_launch;
  // One bucket per layer of the stage whose parameters the gradient bytes count (step_work.h).
  const int layers_per_stage = work.params_layers;
  // The pipeline alone (warm-up, steady state, cool-down, P2P transfers).
  const PipelineTimes alone = simulate_pipeline(in);
  r.pipeline_s = alone.makespan_s;
  r.pipeline_bubble_fraction = alone.bubble_fraction;
  // Gradient buckets, one per layer, reduced while the last micro-batch's backward still runs
  // (overlap_grad_reduce): the replay starts each after its layer and stretches the compute it
  // overlaps by the share of the GPU its NCCL kernels take; the last bucket of a stage is exposed.
  // Without overlap, one reduction follows each stage's last backward.
  const bool rs_overlap = s.ddp.overlap_grad_reduce && rs_ring > 0;
  PipelineTimes pt = alone;
  if (rs_overlap) {
    in.grad_buckets.assign(split.begin(), split.end());
    in.grad_bucket_s = rs_ring / layers_per_stage + rs_launch;
    in.grad_bucket_load = comm_load(cost, grad_kind, group, work.grad_reduce_bytes / layers_per_stage);
    pt = simulate_pipeline(in);
  }
  double end_s = 0;
  for (int st = 0; st < p; ++st) {
    const auto si = static_cast<std::size_t>(st);
    end_s = std::max(end_s, rs_overlap ? std::max(pt.stage_end_s[si], pt.grad_reduced_s[si])
                                       : pt.stage_end_s[si] + r.dp_grad_reduce_s);
  }
  // Parameter all-gather: after the optimizer, or (overlap_param_gather) in per-layer buckets behind
  // the first forward of the next step. Exposed then: the first bucket, or what stage 0's first
  // forward cannot hide; the hidden part stretches that forward by the share of the GPU it takes.
  const bool ag_overlap = dist && s.ddp.overlap_param_gather && ag_ring > 0;
  const double ag_exposed =
      ag_overlap ? std::max(ag_ring / layers_per_stage, ag_ring - alone.first_forward_s) + ag_launch : r.dp_param_gather_s;
  const double ag_load =
      ag_overlap ? comm_load(cost, TaskKind::AllGather, group, work.param_gather_bytes / layers_per_stage) : 0.0;
  const double ag_s = ag_exposed + ag_load * (r.dp_param_gather_s - ag_exposed);
  // Everything data parallelism adds to the pipeline: exposed collectives and the compute their
  // hidden part slows down.
  r.dp_exposed_s = end_s - alone.makespan_s + ag_s;
  r.optimizer_s = kernels_s(cost, work.step_end);   // gradient norm, Adam, FP8 weight cast
  time_s = end_s + ag_s + r.optimizer_s;
  return time_s;
}

// The step's headline figures from its time: tokens/s (per GPU), model TFLOP/s per GPU and both MFUs.
void set_throughput(const Scenario& s, StepReport& r) {
  const double time_s = r.time_s;
  const double world = s.world_size();
  const double batch_tokens = static_cast<double>(r.global_batch) * s.model.seq_length;
  r.tokens_per_s = time_s > 0 ? batch_tokens / time_s : 0.0;
  r.tokens_per_s_per_gpu = r.tokens_per_s / world;
  const ModelFlops f = model_flops(s);
  r.model_tflops_per_gpu = time_s > 0 ? f.step / (time_s * world) / 1e12 : 0.0;
  // MFU: the model FLOPs at the peak of the precision each op runs in (model_flops.h peak_time_s).
  r.mfu = time_s > 0 ? peak_time_s(f, s, world, false) / time_s : 0.0;
  r.mfu_causal = time_s > 0 ? peak_time_s(f, s, world, true) / time_s : 0.0;
}

}  // namespace

Scenario model_parallel_slice(const Scenario& s) {
  Scenario t = s;
  t.model.pipeline_model_parallel_size = 1;
  t.model.virtual_pipeline_model_parallel_size = 1;
  t.train.global_batch_size = 0;
  if (!s.cluster.faults.empty()) return t;   // faults name ranks and nodes of the whole cluster
  const int group = s.tp() * s.cp();
  const int gpn = s.cluster.gpus_per_node;
  if (group > 0 && gpn > 0) {
    if (group % gpn == 0) t.cluster.nodes = group / gpn;
    else if (gpn % group == 0) t.cluster.nodes = 1;   // the replicas that share one node
  }
  return t;
}

StepReport compose_step(const Scenario& s, const LayerTimes& lt, const StepOptions& options) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("compose_step: " + m); };
  const bool prefill = s.train.mode == TrainMode::Prefill;
  const int p = s.pp(), v = s.vpp(), m = s.micro_batches(), L = s.model.num_layers;
  if (p < 1 || v < 1 || L < 1) fail("pipeline sizes and num_layers must be >= 1");
  if (m < 1) fail("global_batch_size must be a multiple of micro_batch_size x dp");
  if (!uneven_pipeline_split(s.model) && L % (p * v) != 0) fail("num_layers must divide by pp x vpp");
  // Layers of each model chunk (Megatron's split, even or uneven); throws naming the field.
  const std::vector<std::vector<int>> split = pipeline_split(s.model);
  StepReport r;
  r.mode = to_string(s.train.mode);
  r.attention_only = !lt.whole_layer;
  r.micro_batches = m;
  r.global_batch = s.global_batch();

  const CostModel cost(s);
  const std::shared_ptr<const RankLayout> shared = shared_layout(s);   // the planner reuses it
  const RankLayout& layout = *shared;
  const RouteModel routes(s, cost);
  const StepWork work = step_work(s);
  // The stage with the most layers (the report's per-stage breakdown) and the largest chunk.
  const std::size_t busiest = busiest_stage(split);
  int largest_chunk = 0;
  for (const auto& chunks : split) largest_chunk = std::max(largest_chunk, *std::max_element(chunks.begin(), chunks.end()));

  // Elementwise kernels of one layer (model.elementwise_ops, layer_elementwise.h): outside the
  // layer graph, added to each layer's forward, recomputed forward and backward.
  const double ew_f = lt.whole_layer ? kernels_s(cost, work.layer_elementwise_forward) : 0.0;
  const double ew_b = lt.whole_layer ? kernels_s(cost, work.layer_elementwise_backward) : 0.0;
  // One layer's op-level recomputation (selective_op): every second matmul and the elementwise ops.
  const double op_recompute_s = lt.whole_layer ? kernels_s(cost, work.layer_recompute_forward) : 0.0;
  auto recompute_s = [&](int n, int& recomputed) { return chunk_recompute_s(s, lt, ew_f, op_recompute_s, n, recomputed); };
  // The report's recomputation and elementwise seconds: the busiest stage's chunks, one micro-batch.
  for (int n : split[busiest]) {
    int recomputed = 0;
    r.recompute_s += recompute_s(n, recomputed);
    r.elementwise_s += prefill ? n * ew_f : n * (ew_f + ew_b) + recomputed * ew_f;
  }
  int largest_recomputed = 0;
  const double largest_recompute_s = recompute_s(largest_chunk, largest_recomputed);
  // Embedding (first stage), output layer and loss (last stage): step_work.h.
  const double emb_f = kernels_s(cost, work.embedding_forward);
  const double emb_b = kernels_s(cost, work.embedding_backward);
  const double out_f = kernels_s(cost, work.output_forward);
  const double out_b = kernels_s(cost, work.output_backward);
  r.embedding_s = emb_f + emb_b;
  r.output_layer_s = out_f + out_b;

  // P2P activation transfers between neighbouring stages, on the route between the two ranks.
  const double send_load = add_p2p_times(s, cost, layout, routes, work.p2p_bytes, options.link_sharing, r);

  // Parameter sharding (ZeRO-3 / FSDP): per layer, the parameters gathered before each forward
  // (and recomputed forward) and before the backward, the gradients reduce-scattered after it, on
  // the DP x CP group's NCCL stream, prefetched one layer ahead (parameter_sharding_s).
  const ShardingCost shard = s.ddp.shard_parameters
                                 ? parameter_sharding_s(s, cost, routes, layout, work, lt.layer_forward_s + ew_f,
                                                        lt.layer_backward_s + ew_b + largest_recompute_s / std::max(1, largest_chunk),
                                                        gathers_in_backward(s, largest_recomputed), largest_chunk)
                                 : ShardingCost{};
  r.fsdp_param_gather_s = shard.gather_s;
  r.fsdp_grad_reduce_s = shard.reduce_s;
  r.fsdp_exposed_s = v * (shard.forward_s + (prefill ? 0.0 : shard.backward_s));

  PipelineInputs in;
  in.stages = p;
  in.micro_batches = m;
  in.chunks = v;
  in.p2p_forward_s = r.p2p_forward_s;
  in.p2p_backward_s = r.p2p_backward_s;
  in.send_load = send_load;
  in.serialize_sends = options.link_sharing;
  in.blocking_sends = !s.model.p2p_overlapped();
  in.forward_s.assign(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(v), 0.0));
  in.backward_s = in.forward_s;
  std::vector<double> stage_f(static_cast<std::size_t>(p), 0.0);
  for (int st = 0; st < p; ++st) {
    const auto si = static_cast<std::size_t>(st);
    double stage_b = 0;
    for (int c = 0; c < v; ++c) {
      const auto ci = static_cast<std::size_t>(c);
      const int n = split[si][ci];
      int recomputed = 0;
      double f = n * (lt.layer_forward_s + ew_f) + shard.forward_s;
      double b = prefill ? 0.0 : n * (lt.layer_backward_s + ew_b) + recompute_s(n, recomputed) + shard.backward_s;
      if (st == 0 && c == 0) {
        f += emb_f;
        b += emb_b;
      }
      if (st == p - 1 && c == v - 1) {
        f += out_f;
        b += out_b;
      }
      in.forward_s[si][ci] = f;
      in.backward_s[si][ci] = b;
      stage_f[si] += f;
      stage_b += b;
    }
    r.stage_forward_s = std::max(r.stage_forward_s, stage_f[si]);
    r.stage_backward_s = std::max(r.stage_backward_s, stage_b);
  }

  if (prefill) {
    // One sequence through every stage and chunk, one transfer per boundary; the m micro-batches of
    // the batch follow each other through the pipeline, one busiest-stage forward apart.
    r.ttft_s = std::accumulate(stage_f.begin(), stage_f.end(), 0.0) + (p * v - 1) * r.p2p_forward_s;
    r.pipeline_s = r.ttft_s + (m - 1) * std::max(r.stage_forward_s, r.p2p_forward_s);
    r.pipeline_bubble_fraction = r.pipeline_s > 0 ? 1.0 - m * r.stage_forward_s / r.pipeline_s : 0.0;
  }
  r.time_s = prefill ? r.pipeline_s : training_step_s(s, cost, layout, routes, work, split, in, r);
  set_throughput(s, r);
  return r;
}

}  // namespace hcpsim::step
