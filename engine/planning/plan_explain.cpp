// One sentence per planner choice: why this comm type, where its groups sit, memory, and the
// distance to the best candidate.
#include <cmath>
#include <cstdio>
#include <set>

#include "engine/layout/rank_layout.h"
#include "engine/memory/memory_model.h"
#include "engine/planning/planner.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::planning {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

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

// Whether every group of a kind lies inside one node (rank 0's group stands for all).
bool group_in_one_node(const Scenario& s, GroupKind k) {
  try {
    const RankLayout l = RankLayout::from_scenario(s);
    std::set<int> nodes;
    for (int r : l.group_of(k, 0)) nodes.insert(l.coord(r).node);
    return nodes.size() == 1;
  } catch (const std::exception&) {
    return false;
  }
}

// HyperParallel's mode in words: where its all-to-all and its all-gather run, what the gather keeps.
std::string hyperparallel_reason(const PlanCandidate& c, const Scenario& s) {
  const auto& hp = s.hyperparallel;
  const int u = hp.ulysses(c.cp), co = c.cp / u;
  const int gt = s.kv_heads_per_tp_rank();
  std::string why = std::string("HyperParallel ") + to_string(hp.style) + " ";
  const std::string a2a_where = group_in_one_node(s, GroupKind::HP_ULYSSES) ? "inside the node" : "across nodes";
  const std::string ag_where = group_in_one_node(s, GroupKind::HP_COLOSSAL) ? "inside the node" : "across nodes";
  // The rank's own K and V after its all-to-all; the all-gather keeps co of them per layer to backward.
  const double m_kv = static_cast<double>(s.model.seq_length) / c.cp * s.train.micro_batch_size * gt * 2.0 *
                      s.head_dim() * bytes_per_element(s.model.params_dtype);
  switch (hp.mode(c.cp)) {
    case HpMode::Ulysses:
      why += "pure Ulysses: Q/K/V all-to-all over " + std::to_string(c.cp) + " ranks " + a2a_where + " (" +
             std::to_string(gt) + " KV heads per TP rank)";
      break;
    case HpMode::Colossal:
      why += "pure Colossal: K/V all-gathered over " + std::to_string(c.cp) + " ranks " + ag_where + ", " +
             num((co - 1) * m_kv / kMiB, 0) + " MiB more K/V kept per layer until backward";
      if (hp.load_balance) why += ", head-tail load balance";
      break;
    case HpMode::Hybrid:
      why += "hybrid: all-to-all in groups of " + std::to_string(u) + " " + a2a_where + ", then K/V all-gather across " +
             std::to_string(co) + " " + ag_where + " (" + num((co - 1) * m_kv / u / kMiB, 0) +
             " MiB more K/V kept per layer)";
      break;
  }
  if (hp.style == HpStyle::AsyncDSA)
    why += ", DSA top-k " + std::to_string(s.model.dsa.index_topk) + " with the key-side gathers started from their projections";
  else if (hp.style == HpStyle::DSA)
    why += ", DSA top-k " + std::to_string(s.model.dsa.index_topk);
  else if (hp.style == HpStyle::AsyncContextParallel && hp.async_effective())
    why += hp.mode(c.cp) == HpMode::Hybrid ? ", all-to-alls started after the projections" : ", collectives started after the projections";
  return why;
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
    why = hyperparallel_reason(c, s);
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
