// One sentence per planner choice: why this comm type, where its groups sit, memory, and the
// distance to the best candidate.
#include <cmath>
#include <cstdio>
#include <set>

#include "engine/layout/rank_layout.h"
#include "engine/memory/memory_model.h"
#include "engine/planning/planner.h"
#include "engine/schedule/hp_styles.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::planning {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string num(double v, int prec) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

struct Placement {
  bool known = false;
  bool a2a_intra = false;   // every a2a (level-0, or the whole CP group for pure a2a) inside one node
  int ring_hops = 0;        // hops of one ring
  int ring_intra_hops = 0;  // of which inside a node
};

Placement placement_of(const Scenario& s) {
  Placement p;
  try {
    const RankLayout l = RankLayout::from_scenario(s);
    const GroupKind a2a_kind = l.hierarchical() ? GroupKind::HCP_A2A : GroupKind::CP;
    std::set<int> nodes;
    for (int r : l.group_of(a2a_kind, 0)) nodes.insert(l.coord(r).node);
    p.a2a_intra = nodes.size() == 1;
    const GroupKind ring_kind = l.hierarchical() ? GroupKind::HCP_P2P : GroupKind::CP;
    for (int r : l.group_of(ring_kind, 0)) {
      ++p.ring_hops;
      if (l.coord(r).node == l.coord(l.ring_next(r)).node) ++p.ring_intra_hops;
    }
    p.known = true;
  } catch (const std::exception&) {
  }
  return p;
}

// What the candidate's schedule says about itself (engine/schedule/schedule_descriptor.h).
schedule::ExplainFacts explain_facts(const PlanCandidate& c, const Scenario& s, const std::string& heads,
                                     bool a2a_possible, const Placement& pl) {
  schedule::ExplainFacts f;
  f.cp = c.cp;
  f.heads = heads;
  f.a2a_possible = a2a_possible;
  f.placement_known = pl.known;
  f.a2a_intra = pl.a2a_intra;
  f.ring_hops = pl.ring_hops;
  f.ring_intra_hops = pl.ring_intra_hops;
  f.full_kv_bytes = static_cast<double>(s.model.seq_length) * s.train.micro_batch_size * s.kv_heads_per_tp_rank() *
                    2.0 * s.head_dim() * bytes_per_element(s.model.params_dtype);
  if (c.hierarchical.size() == 2) {
    f.split_a2a = c.hierarchical[0];
    f.split_ring = c.hierarchical[1];
  }
  return f;
}

}  // namespace

std::string explain(const PlanEntry& e, const PlanEntry& best, const std::string& metric) {
  const PlanCandidate& c = e.candidate;
  const Scenario& s = e.scenario;
  const int gt = s.kv_heads_per_tp_rank();
  const std::string heads = std::to_string(gt) + " KV head" + (gt == 1 ? "" : "s") + " per TP rank";
  const bool a2a_possible = gt % c.cp == 0 && s.heads_per_tp_rank() % c.cp == 0;
  const Placement pl = placement_of(s);
  std::string why;
  if (c.hyperparallel && c.cp > 1) {
    why = schedule::hp_explain(s, c.cp);
  } else if (c.cp == 1) {
    why = "no context parallelism: each TP group holds the whole sequence";
  } else {
    why = schedule::schedule_of(c.comm).explain(explain_facts(c, s, heads, a2a_possible, pl));
  }
  why += "; tp=" + std::to_string(c.tp) + (c.tp > 1 ? " with sequence parallelism" : "");
  // Pipeline, data parallelism, batch.
  const int micro = s.micro_batches();
  const double bubble = e.result.metrics.pipeline_bubble_fraction;
  if (c.pp > 1) {
    why += "; pp=" + std::to_string(c.pp) + (c.vpp > 1 ? " interleaved vpp=" + std::to_string(c.vpp) : std::string(" 1F1B")) +
           " over " + std::to_string(micro) + " micro-batches";
    if (!std::isnan(bubble)) why += " (bubble " + num(100.0 * bubble, 1) + "%)";
  } else {
    why += "; no pipeline";
  }
  why += "; dp=" + std::to_string(c.dp) + (c.dp > 1 ? " replicas" : " (one replica)");
  if (c.mbs > 1) why += ", micro-batch " + std::to_string(c.mbs);
  // Recomputation and the optimizer: what they save.
  if (c.recompute != Recompute::None) {
    MemoryOptions none;
    none.recompute = Recompute::None;
    const MemoryEstimate without = estimate_memory(s, none);
    why += std::string("; ") + to_string(c.recompute) + " recomputation (" + num(without.total_bytes / kGiB, 1) +
           " GiB without it" + (without.fits ? ")" : ", does not fit)");
  }
  if (s.train.mode == TrainMode::Train) {
    MemoryOptions other;
    other.distributed_optimizer = !c.distributed_optimizer;
    const double delta = estimate_memory(s, other).total_bytes - e.memory.total_bytes;
    why += c.distributed_optimizer ? "; distributed optimizer saves " + num(delta / kGiB, 1) + " GiB"
                                   : "; no distributed optimizer (it would save " + num(-delta / kGiB, 1) + " GiB)";
  }
  why += "; " + num(e.memory.total_bytes / kGiB, 1) + " of " + num(e.memory.capacity_bytes / kGiB, 1) + " GiB";
  if (&e == &best) {
    why += "; best " + metric;
  } else {
    const double v = metric_value(e.result, metric);
    const double b = metric_value(best.result, metric);
    if (b != 0 && !std::isnan(v) && !std::isnan(b)) {
      const double pct = 100.0 * std::fabs(v - b) / std::fabs(b);
      why += "; " + num(pct, 1) + "% " + (metric_higher_is_better(metric) ? "below" : "above") + " the best " + metric;
    }
  }
  return why;
}

}  // namespace hcpsim::planning
