#include "engine/planning/planner.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "engine/planning/sweep_runner.h"

namespace hcpsim::planning {
namespace {

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

PointResult predict_one(const ScenarioPredictor& predict, const Scenario& s) {
  PointResult r;
  try {
    r.metrics = predict(s);
  } catch (const std::exception& e) {
    r.status = PointStatus::Error;
    r.message = e.what();
  }
  return r;
}

}  // namespace

std::string PlanCandidate::label() const {
  std::string s = "tp=" + std::to_string(tp) + " cp=" + std::to_string(cp) + " dp=" + std::to_string(dp) +
                  " " + to_string(comm);
  if (!hierarchical.empty())
    s += " [" + std::to_string(hierarchical[0]) + "," + std::to_string(hierarchical[1]) + "]";
  if (order != "tp-cp-ep-dp-pp") s += " " + order;
  return s;
}

std::vector<PlanCandidate> enumerate_candidates(const Scenario& base, int gpus) {
  const int gpn = base.cluster.gpus_per_node;
  if (gpus <= 0 || gpn <= 0 || (gpus % gpn != 0 && gpn % gpus != 0))
    throw std::invalid_argument("--gpus " + std::to_string(gpus) + ": must be a multiple of gpus_per_node (" +
                                std::to_string(gpn) + ") or a divisor of it");
  const int pp = base.pp();
  std::vector<PlanCandidate> out;
  if (pp <= 0 || gpus % pp != 0) return out;
  std::vector<std::string> orders{"tp-cp-ep-dp-pp"};
  if (pp > 1) orders.push_back("tp-cp-ep-pp-dp");
  for (int tp : divisors(std::min(gpn, gpus))) {
    if ((gpus / pp) % tp != 0) continue;
    for (int cp : divisors(gpus / pp / tp)) {
      const int dp = gpus / pp / tp / cp;
      for (const std::string& order : orders) {
        if (order != orders.front() && dp == 1) continue;   // the orders differ only when dp > 1 and pp > 1
        PlanCandidate c;
        c.tp = tp;
        c.cp = cp;
        c.dp = dp;
        c.order = order;
        if (cp == 1) {
          out.push_back(c);
          continue;
        }
        for (CpCommType t : {CpCommType::P2P, CpCommType::AllGather, CpCommType::A2A}) {
          c.comm = t;
          out.push_back(c);
        }
        c.comm = CpCommType::A2AP2P;
        for (int a = 2; a < cp; ++a) {
          if (cp % a) continue;
          c.hierarchical = {a, cp / a};
          out.push_back(c);
        }
      }
    }
  }
  return out;
}

Scenario apply_candidate(const Scenario& base, const PlanCandidate& c, int gpus) {
  Scenario s = base;
  const int gpn = base.cluster.gpus_per_node;
  if (gpus % gpn == 0) {
    s.cluster.nodes = gpus / gpn;
  } else {
    s.cluster.nodes = 1;
    s.cluster.gpus_per_node = gpus;
    s.cluster.nics_per_node = std::min(s.cluster.nics_per_node, gpus);
  }
  s.model.tensor_model_parallel_size = c.tp;
  s.model.context_parallel_size = c.cp;
  s.model.cp_comm_type = {c.comm};
  s.model.hierarchical_context_parallel_sizes = c.hierarchical;
  s.model.sequence_parallel = base.model.sequence_parallel && c.tp > 1;
  s.dist.order = c.order;
  return s;
}

PlanOutcome plan(const Scenario& base, const PlanOptions& options, const ScenarioValidator& validate,
                 const ScenarioPredictor& predict) {
  const int gpus = options.gpus > 0 ? options.gpus : base.world_size();
  (void)metric_value(PointResult{}, options.metric);   // unknown metric: throws before any work
  PlanOutcome out;
  std::vector<PlanEntry> kept;
  for (const PlanCandidate& c : enumerate_candidates(base, gpus)) {
    ++out.enumerated;
    PlanEntry e;
    e.candidate = c;
    e.scenario = apply_candidate(base, c, gpus);
    const Diagnostics d = validate(e.scenario);
    if (d.has_errors()) {
      ++out.invalid;
      for (const Diagnostic& x : d.items())
        if (x.severity == Severity::Error) {
          ++out.invalid_reasons[x.path + ": " + x.message];
          break;
        }
      continue;
    }
    e.memory = estimate_memory(e.scenario, options.memory);
    if (!e.memory.fits) {
      ++out.out_of_memory;
      continue;
    }
    kept.push_back(std::move(e));
  }

  std::vector<PointResult> results(kept.size());
  if (options.jobs > 1 && kept.size() > 1) {
    std::vector<SweepPoint> points(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      points[i].index = i;
      points[i].labels = {std::to_string(i)};
    }
    SweepRunOptions ro;
    ro.jobs = options.jobs;
    const SweepOutcome so = run_sweep(points, {"candidate"}, [&](const SweepPoint& p) {
      return predict_one(predict, kept[p.index].scenario);
    }, ro);
    for (const PointResult& r : so.results) results[std::stoul(r.labels[0])] = r;
  } else {
    for (std::size_t i = 0; i < kept.size(); ++i) results[i] = predict_one(predict, kept[i].scenario);
  }

  std::vector<PlanEntry> ok;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    PlanEntry& e = kept[i];
    e.result = results[i];
    e.result.labels = {e.candidate.label()};
    e.result.comm_type = e.candidate.cp > 1 ? to_string(e.candidate.comm) : "none";
    e.result.fits = true;
    e.result.metrics.memory_per_gpu_bytes = e.memory.total_bytes;
    if (e.result.status != PointStatus::Ok || std::isnan(metric_value(e.result, options.metric))) {
      ++out.failed;
      continue;
    }
    ok.push_back(std::move(e));
  }
  const bool higher = metric_higher_is_better(options.metric);
  std::stable_sort(ok.begin(), ok.end(), [&](const PlanEntry& a, const PlanEntry& b) {
    const double va = metric_value(a.result, options.metric);
    const double vb = metric_value(b.result, options.metric);
    return higher ? va > vb : va < vb;
  });
  if (ok.size() > static_cast<std::size_t>(std::max(0, options.top))) ok.resize(std::max(0, options.top));
  for (PlanEntry& e : ok) e.explanation = explain(e, ok.front(), options.metric);
  out.best = std::move(ok);

  // Where pure a2a stops: cp must divide the KV heads per TP rank.
  const int g = base.model.num_query_groups > 0 ? base.model.num_query_groups : base.model.num_attention_heads;
  std::string cap = "pure a2a needs cp <= KV heads per TP rank (" + std::to_string(g) + " KV heads):";
  for (int tp : divisors(std::min(base.cluster.gpus_per_node, gpus))) {
    const int gt = g >= tp ? g / tp : 1;
    cap += " tp=" + std::to_string(tp) + " -> cp <= " + std::to_string(gt) + ";";
  }
  cap.back() = '.';
  out.notes.push_back(cap);
  return out;
}

}  // namespace hcpsim::planning
