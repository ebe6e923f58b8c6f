#include "engine/planning/planner_bound.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "engine/cost/route.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/layout_cache.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::planning {
namespace {

// The slowest rank's exchanges of one pass of `ring` (ranks in ring order), one after the other,
// seconds.
//
// Why it is a lower bound on what the analytic backend gives (engine/analytic/analytic_backend.cpp):
// * a rank's send/recv calls of one pass all go on its NCCL p2p stream, so each starts only after
//   the previous one ended (ScheduleContext::add: a task follows its stream's previous task);
// * a send/recv task ends when every transfer it takes part in has ended, plus the cost model's
//   comm_overhead_s; a transfer starts no earlier than the task is ready (it starts once both ends
//   are ready) and lasts RouteModel::p2p_transfer_seconds(route(src, dst), bytes, the op's
//   communicator) — the same call made here, on the same ranks, with the same communicator
//   (CostModel::p2p_comm of the ring's members, the op the builder makes for each ring and step);
// * so rank r's exchange in step i lasts at least max(its send, its receive) + that overhead, and
//   the exchanges of a pass, all inside the rank's span of that layer pass, add up;
// * the report's layer time is the slowest rank's span: at least any rank's, here those of the ring
//   holding rank 0, the ring a folded run simulates too (engine/fold: its unit is ranks 0..U-1, laid
//   out as in the job).
// Forward ring: rank r sends to r + 1 and receives from r - 1; backward: the other way round.
double ring_exchanges_s(const Scenario& s, const schedule::ScheduleDescriptor& d, const std::vector<int>& ring,
                        Pass pass, const CostModel& cost, const RouteModel& routes) {
  const int R = static_cast<int>(ring.size());
  CommOp op;
  op.kind = TaskKind::SendRecv;
  op.group = d.kv_ring_group;
  op.ranks.assign(ring.begin(), ring.end());
  const NcclP2pComm comm = cost.p2p_comm(op);
  Task exchange;
  exchange.kind = TaskKind::SendRecv;
  exchange.step = 0;   // a ring step: the per-step synchronisation counts
  const double overhead_s = cost.comm_overhead_s(exchange);
  const double block_bytes = d.kv_ring_block_bytes(s);
  // Steps per distinct message size.
  const schedule::RingPassWork work = schedule::ring_pass_work(R, pass);
  std::map<double, int> steps_of_bytes;
  for (int i = 0; i < work.exchanges; ++i) ++steps_of_bytes[schedule::ring_exchange_bytes(R, pass, i, block_bytes)];
  const bool forward = pass == Pass::Forward;
  auto at = [&](int j) { return ring[static_cast<std::size_t>((j % R + R) % R)]; };
  // One transfer alone on its route, as P2pTimeCache::seconds prices it (a rank to itself: free).
  auto seconds = [&](int src, int dst, double bytes) {
    const Route r = routes.route(src, dst);
    return r.self ? 0.0 : routes.p2p_transfer_seconds(r, bytes, comm);
  };
  std::vector<double> rank_s(static_cast<std::size_t>(R), 0.0);
  for (const auto& [bytes, steps] : steps_of_bytes) {
    // hop[j]: ring rank j to its successor in this pass's direction.
    std::vector<double> hop(static_cast<std::size_t>(R));
    for (int j = 0; j < R; ++j) hop[static_cast<std::size_t>(j)] = seconds(at(j), at(forward ? j + 1 : j - 1), bytes);
    for (int r = 0; r < R; ++r) {
      const double send = hop[static_cast<std::size_t>(r)];
      const double receive = hop[static_cast<std::size_t>(((forward ? r - 1 : r + 1) + R) % R)];
      rank_s[static_cast<std::size_t>(r)] += steps * (std::max(send, receive) + overhead_s);
    }
  }
  return *std::max_element(rank_s.begin(), rank_s.end());
}

}  // namespace

LayerBound layer_lower_bound(const Scenario& s, CpCommType c, const CostModel& cost) {
  const schedule::ScheduleDescriptor& d = schedule::schedule_of(c);
  const int R = d.kv_ring_ranks != nullptr && d.kv_ring_block_bytes != nullptr ? d.kv_ring_ranks(s) : 0;
  LayerBound b;
  if (R < 2) return b;
  // Compute kernels: each costs at least the kernel overhead (CostModel::compute_seconds adds it to
  // every compute kernel, and a straggler's slowdown only raises it); under processor sharing the
  // kernels of a rank get at most one second of work per second, so a pass's span on the rank is at
  // least their sum.
  const double overhead_s = cost.kernel_overhead_s();
  b.forward.kernels_s = schedule::ring_pass_work(R, Pass::Forward).compute_kernels * overhead_s;
  b.backward.kernels_s = schedule::ring_pass_work(R, Pass::Backward).compute_kernels * overhead_s;
  try {
    const std::shared_ptr<const RankLayout> layout = shared_layout(s);
    const std::vector<int>& ring = layout->group_of(d.kv_ring_group, 0);
    if (static_cast<int>(ring.size()) != R) return b;   // not the ring the builder runs: kernels only
    const RouteModel routes(s, cost);
    b.forward.exchanges_s = ring_exchanges_s(s, d, ring, Pass::Forward, cost, routes);
    b.backward.exchanges_s = ring_exchanges_s(s, d, ring, Pass::Backward, cost, routes);
  } catch (const std::exception&) {
    b.forward.exchanges_s = b.backward.exchanges_s = 0.0;   // a layout or route the models refuse: kernels only
  }
  return b;
}

LayerBound layer_lower_bound(const Scenario& s, const CostModel& cost) {
  if (s.train.mode == TrainMode::Prefill || s.hyperparallel_cp() || s.model.ffn_hidden_size <= 0) return {};
  if (s.model.cp_comm_type.empty()) return {};
  // The smallest bound per pass over the layers' comm types (a type without a ring: no bound).
  LayerBound b;
  bool first = true;
  std::vector<CpCommType> seen;
  for (CpCommType c : s.model.cp_comm_type) {
    if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    seen.push_back(c);
    const LayerBound t = layer_lower_bound(s, c, cost);
    if (!(t.forward.seconds() > 0 && t.backward.seconds() > 0)) return {};
    if (first || t.forward.seconds() < b.forward.seconds()) b.forward = t.forward;
    if (first || t.backward.seconds() < b.backward.seconds()) b.backward = t.backward;
    first = false;
  }
  return b;
}

double step_lower_bound_s(const Scenario& s, const LayerBound& layer) {
  // Each pass's bound is the larger of its two terms: both hold for the same span.
  const double fwd_s = layer.forward.seconds(), bwd_s = layer.backward.seconds();
  if (!(fwd_s > 0 && bwd_s > 0)) return 0.0;
  const bool full_uniform = s.model.recompute_granularity == RecomputeGranularity::Full &&
                            s.model.recompute_method == RecomputeMethod::Uniform;
  // The step model's layer times are these spans (per layer and pass, slowest rank); the pipeline
  // replay runs each stage's m micro-batches x chunks one at a time, each at least its layers'
  // forward (and backward, and the full recomputation's forward again); the step ends after the
  // busiest stage. Elementwise kernels, embedding, output layer, pipeline transfers, DP and the
  // optimizer only add.
  int stage_layers = 0;
  try {
    for (const std::vector<int>& chunks : pipeline_split(s.model))
      stage_layers = std::max(stage_layers, std::accumulate(chunks.begin(), chunks.end(), 0));
  } catch (const std::exception&) {
    return 0.0;   // the split does not validate: no bound
  }
  const int m = s.micro_batches();
  if (m < 1 || stage_layers < 1) return 0.0;
  const double layer_s = fwd_s + bwd_s + (full_uniform ? fwd_s : 0.0);
  return static_cast<double>(m) * stage_layers * layer_s;
}

double step_lower_bound_s(const Scenario& s) {
  const CostModel cost(s);
  return step_lower_bound_s(s, layer_lower_bound(s, cost));
}

std::vector<double> step_lower_bounds_s(const std::vector<Scenario>& members, const Scenario& layer_run,
                                        const CostModel& cost) {
  const LayerBound layer = layer_lower_bound(layer_run, cost);
  std::vector<double> out;
  out.reserve(members.size());
  for (const Scenario& s : members) out.push_back(step_lower_bound_s(s, layer));
  return out;
}

double metric_bound(const Scenario& s, const std::string& metric, double bound_s) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (!(bound_s > 0)) return kNaN;
  if (metric == "step_s") return bound_s;
  if (metric == "tokens_per_s_per_gpu") {
    const double tokens = static_cast<double>(s.global_batch()) * static_cast<double>(s.model.seq_length);
    return tokens / bound_s / s.world_size();
  }
  return kNaN;
}

}  // namespace hcpsim::planning
