#include "engine/step/step_model.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/analytic/collective_time.h"
#include "engine/cost/cost_model.h"
#include "engine/cost/route.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/memory/memory_model.h"
#include "engine/step/model_flops.h"
#include "engine/step/pipeline_schedule.h"

namespace hcpsim::step {
namespace {

// Bytes the Adam step moves per parameter it updates: read the fp32 gradient (4), read and write
// the fp32 main parameter and both moments (12 + 12), write the bf16 parameter (2).
constexpr double kOptimizerBytesPerParam = 30.0;
constexpr double kGradBytesPerParam = 4.0;    // fp32 gradient buckets (grad_reduce_in_fp32)
constexpr double kParamBytesPerParam = 2.0;   // bf16 parameters gathered back

// Seconds of one compute kernel timed by the scenario's cost model (GEMM or memory-bound).
double kernel_s(const CostModel& cost, TaskKind kind, double flops, double bytes) {
  TaskGraph g;
  Task t;
  t.kind = kind;
  t.flops = flops;
  t.bytes = bytes;
  return cost.compute_seconds(g, t);
}

double ring_s(const RouteModel& routes, TaskKind kind, const std::vector<int>& group, double bytes_per_rank) {
  if (group.size() < 2 || bytes_per_rank <= 0) return 0.0;
  CommOp op;
  op.kind = kind;
  op.group = GroupKind::DP_CP;
  op.ranks.assign(group.begin(), group.end());
  op.bytes_per_rank = bytes_per_rank;
  return ring_collective_seconds(op, routes);
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

StepReport compose_step(const Scenario& s, const LayerTimes& lt) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("compose_step: " + m); };
  const bool prefill = s.train.mode == TrainMode::Prefill;
  const int p = s.pp(), v = s.vpp(), m = s.micro_batches(), L = s.model.num_layers;
  if (p < 1 || v < 1 || L < 1) fail("pipeline sizes and num_layers must be >= 1");
  if (m < 1) fail("global_batch_size must be a multiple of micro_batch_size x dp");
  if (L % (p * v) != 0) fail("num_layers must divide by pp x vpp");
  StepReport r;
  r.mode = to_string(s.train.mode);
  r.attention_only = !lt.whole_layer;
  r.micro_batches = m;
  r.global_batch = s.global_batch();

  const CostModel cost(s);
  const RankLayout layout = RankLayout::from_scenario(s);
  const RouteModel routes(s, cost);
  const int layers_per_chunk = L / (p * v);
  const double e = bytes_per_element(s.model.params_dtype);
  const double h = s.model.hidden_size;
  const double tokens = static_cast<double>(s.train.micro_batch_size) * s.model.seq_length / s.cp();
  const double vocab_t = static_cast<double>(s.model.vocab_size) / s.tp();

  // Recomputation (training): the forward run again inside the backward, per chunk.
  double recompute_chunk_s = 0;
  if (!prefill) {
    switch (s.model.recompute_granularity) {
      case RecomputeGranularity::None: break;
      case RecomputeGranularity::Selective: recompute_chunk_s = layers_per_chunk * lt.attention_forward_s; break;
      case RecomputeGranularity::Full: {
        const int n = s.model.recompute_method == RecomputeMethod::Uniform
                          ? layers_per_chunk
                          : std::min(layers_per_chunk, std::max(1, s.model.recompute_num_layers));
        recompute_chunk_s = n * lt.layer_forward_s;
        break;
      }
    }
  }
  // Embedding (first stage): a row gather forward, a scatter-add of fp32 gradients backward.
  const double emb_f = kernel_s(cost, TaskKind::Copy, 0, 2.0 * e * tokens * h);
  const double emb_b = prefill ? 0.0 : kernel_s(cost, TaskKind::Copy, 0, (e + 2.0 * 4.0) * tokens * h);
  // Output layer (last stage): [tokens x h] x [h x V/tp], then the vocab-parallel cross entropy
  // (bf16 logits read, fp32 softmax written). Backward: dgrad + wgrad GEMMs and the softmax gradient.
  // Prefill needs the logits of the last token of each sequence only.
  const double out_tokens = prefill ? static_cast<double>(s.train.micro_batch_size) : tokens;
  const double out_gemm_flops = 2.0 * out_tokens * h * vocab_t;
  const double out_gemm_bytes = e * (out_tokens * h + h * vocab_t + out_tokens * vocab_t);
  const double out_f = kernel_s(cost, TaskKind::Gemm, out_gemm_flops, out_gemm_bytes) +
                       (prefill ? 0.0 : kernel_s(cost, TaskKind::Copy, 0, (e + 4.0) * out_tokens * vocab_t));
  const double out_b = prefill ? 0.0
                               : 2.0 * kernel_s(cost, TaskKind::Gemm, out_gemm_flops, out_gemm_bytes) +
                                     kernel_s(cost, TaskKind::Copy, 0, (4.0 + e) * out_tokens * vocab_t);
  r.embedding_s = emb_f + emb_b;
  r.output_layer_s = out_f + out_b;

  // P2P activation transfers between neighbouring stages: [s/cp, b, h] per TP rank (scattered over
  // TP with sequence parallelism), on the route between the two ranks.
  const double p2p_bytes = e * tokens * h / (s.model.sequence_parallel ? s.tp() : 1);
  if (p > 1) {
    const auto& pp_group = layout.group_of(GroupKind::PP, 0);
    const int hops = v > 1 ? p : p - 1;   // interleaving also sends from the last stage to the first
    for (int i = 0; i < hops; ++i) {
      const int a = pp_group[static_cast<std::size_t>(i)];
      const int b = pp_group[static_cast<std::size_t>((i + 1) % p)];
      r.p2p_forward_s = std::max(r.p2p_forward_s, routes.transfer_seconds(a, b, p2p_bytes));
      r.p2p_backward_s = std::max(r.p2p_backward_s, routes.transfer_seconds(b, a, p2p_bytes));
    }
  }

  PipelineInputs in;
  in.stages = p;
  in.micro_batches = m;
  in.chunks = v;
  in.p2p_forward_s = r.p2p_forward_s;
  in.p2p_backward_s = r.p2p_backward_s;
  in.forward_s.assign(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(v), 0.0));
  in.backward_s = in.forward_s;
  std::vector<double> stage_f(static_cast<std::size_t>(p), 0.0);
  for (int st = 0; st < p; ++st) {
    const auto si = static_cast<std::size_t>(st);
    double stage_b = 0;
    for (int c = 0; c < v; ++c) {
      const auto ci = static_cast<std::size_t>(c);
      double f = layers_per_chunk * lt.layer_forward_s;
      double b = prefill ? 0.0 : layers_per_chunk * lt.layer_backward_s + recompute_chunk_s;
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
  r.recompute_s = v * recompute_chunk_s;

  double time_s = 0;
  if (prefill) {
    // One sequence through every stage and chunk, one transfer per boundary; the m micro-batches of
    // the batch follow each other through the pipeline, one busiest-stage forward apart.
    double ttft = 0;
    for (double f : stage_f) ttft += f;
    r.ttft_s = ttft + (p * v - 1) * r.p2p_forward_s;
    r.pipeline_s = r.ttft_s + (m - 1) * std::max(r.stage_forward_s, r.p2p_forward_s);
    r.pipeline_bubble_fraction = r.pipeline_s > 0 ? 1.0 - m * r.stage_forward_s / r.pipeline_s : 0.0;
    time_s = r.pipeline_s;
  } else {
    const PipelineTimes pt = simulate_pipeline(in);
    r.pipeline_s = pt.makespan_s;
    r.pipeline_bubble_fraction = pt.bubble_fraction;
    // Data parallelism over the DP x CP group (the ranks that hold the same weights).
    const double params = estimate_memory(s).parameters;   // held by one GPU of the first stage
    const auto& group = layout.group_of(GroupKind::DP_CP, 0);
    const double n = static_cast<double>(group.size());
    r.dp_group_size = static_cast<int>(group.size());
    const bool dist = s.ddp.use_distributed_optimizer;
    if (dist) {
      r.dp_grad_reduce_s = ring_s(routes, TaskKind::ReduceScatter, group, kGradBytesPerParam * params / n);
      r.dp_param_gather_s = ring_s(routes, TaskKind::AllGather, group, kParamBytesPerParam * params / n);
    } else {
      r.dp_grad_reduce_s = ring_s(routes, TaskKind::AllReduce, group, kGradBytesPerParam * params);
    }
    const double layers_per_stage = static_cast<double>(L) / p;
    // Gradient buckets are reduced while the last micro-batch's backward still runs (overlap_grad_reduce);
    // the last bucket is always exposed.
    double end_s = 0;
    for (int st = 0; st < p; ++st) {
      const auto si = static_cast<std::size_t>(st);
      const double rs = r.dp_grad_reduce_s;
      const double exposed = s.ddp.overlap_grad_reduce
                                 ? std::max(rs / layers_per_stage, rs - pt.last_backward_window_s[si])
                                 : rs;
      end_s = std::max(end_s, pt.stage_end_s[si] + exposed);
    }
    // Parameter all-gather: overlapped with the first forward of the next step when asked.
    const double ag = r.dp_param_gather_s;
    const double ag_exposed = dist && s.ddp.overlap_param_gather
                                  ? std::max(ag / layers_per_stage, ag - pt.first_forward_s)
                                  : ag;
    r.dp_exposed_s = end_s - pt.makespan_s + ag_exposed;
    const double updated = dist ? params / n : params;
    r.optimizer_s = kernel_s(cost, TaskKind::Copy, 0, kOptimizerBytesPerParam * updated);
    time_s = end_s + ag_exposed + r.optimizer_s;
  }
  r.time_s = time_s;
  const double world = s.world_size();
  const double batch_tokens = static_cast<double>(r.global_batch) * s.model.seq_length;
  r.tokens_per_s = time_s > 0 ? batch_tokens / time_s : 0.0;
  r.tokens_per_s_per_gpu = r.tokens_per_s / world;
  const ModelFlops f = model_flops(s);
  r.model_tflops_per_gpu = time_s > 0 ? f.step / (time_s * world) / 1e12 : 0.0;
  r.mfu = r.model_tflops_per_gpu * 1e12 / s.cluster.gpu.bf16_flops;
  r.mfu_causal = time_s > 0 ? f.step_causal / (time_s * world) / s.cluster.gpu.bf16_flops : 0.0;
  return r;
}

}  // namespace hcpsim::step
