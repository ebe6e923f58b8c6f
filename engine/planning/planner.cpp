#include "engine/planning/planner.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include "engine/error_band/error_band.h"
#include "engine/planning/plan_check.h"
#include "engine/planning/planner_bound.h"
#include "engine/planning/planner_slices.h"
#include "engine/planning/sweep_runner.h"

namespace hcpsim::planning {
namespace {

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

// Rank 0 counts the other ranks' verdicts and tells every rank which candidates are kept; every rank
// then holds every kept candidate, in candidate order (rank 0 also their memory).
std::vector<KeptCandidate> share_kept(const Scenario& base, const std::vector<PlanCandidate>& all, int gpus,
                                      const PlanOptions& options, CheckedCandidates& c, PlanOutcome& out,
                                      PointDistribution& dist) {
  const bool root = dist.rank() == 0;
  const std::vector<std::string> received = gather_on_root(c.verdicts, dist);
  std::vector<std::size_t> kept_index;
  if (root) {
    std::set<std::size_t> keep;
    for (const KeptCandidate& k : c.kept) keep.insert(k.index);
    for (const std::string& line : received)
      if (const auto i = count_verdict(line, all, base.cluster.gpu.memory_bytes, options.misses, out)) keep.insert(*i);
    kept_index.assign(keep.begin(), keep.end());   // ascending: the order of a single process
  }
  kept_index = decode_indices(dist.broadcast(root ? encode_indices(kept_index) : std::string()));
  std::map<std::size_t, KeptCandidate> own;
  for (KeptCandidate& k : c.kept) own.emplace(k.index, std::move(k));
  std::vector<KeptCandidate> every;
  for (std::size_t i : kept_index) {
    if (i >= all.size()) throw std::runtime_error("rank 0 kept candidate " + std::to_string(i) + " of " +
                                                  std::to_string(all.size()) + ": the ranks enumerated different lists");
    const auto it = own.find(i);
    if (it != own.end()) {
      every.push_back(std::move(it->second));
      continue;
    }
    KeptCandidate k{i, {}};
    if (root) k.memory = estimate_memory(apply_candidate(base, all[i], gpus), options.memory);
    every.push_back(std::move(k));
  }
  return every;
}

// Predicts the kept candidates listed in `which`: in worker processes with jobs > 1, else here, on
// options.threads threads; with a slice key, the first candidate of each model-parallel slice before
// the others (which then reuse its backend run), largest first, with few large slice graphs at once.
std::vector<PointResult> predict_share(const Scenario& base, const std::vector<PlanCandidate>& all,
                                       const std::vector<KeptCandidate>& kept, const std::vector<std::size_t>& which,
                                       int gpus, const PlanOptions& options, const ScenarioPredictor& predict,
                                       const SliceKey& slice_key, const std::string& metric) {
  auto scenario_of = [&](std::size_t k) { return apply_candidate(base, all[kept[which[k]].index], gpus); };
  std::vector<PointResult> rs(which.size());
  if (options.jobs > 1 && which.size() > 1) {
    std::vector<SweepPoint> points(which.size());
    for (std::size_t k = 0; k < which.size(); ++k) {
      points[k].index = k;
      points[k].labels = {std::to_string(k)};
    }
    SweepRunOptions ro;
    ro.jobs = options.jobs;
    const SweepOutcome so = run_sweep(points, {"candidate"}, [&](const SweepPoint& p) {
      return predict_one(predict, scenario_of(p.index));
    }, ro);
    for (const PointResult& r : so.results) rs[std::stoul(r.labels[0])] = r;
    return rs;
  }
  const std::size_t every = std::max<std::size_t>(1, which.size() / 20);
  std::atomic<std::size_t> done{0};
  const std::thread::id caller = std::this_thread::get_id();
  auto predict_k = [&](std::size_t k) {
    rs[k] = predict_one(predict, scenario_of(k));
    const std::size_t n = ++done;
    if (options.progress && n % every == 0 && std::this_thread::get_id() == caller)
      options.progress(all.size(), all.size(), n);
  };
  if (!slice_key) {
    for_each_index(which.size(), options.threads, predict_k);
    return rs;
  }
  std::vector<std::string> keys(which.size());
  for_each_index(which.size(), options.threads, [&](std::size_t k) { keys[k] = slice_key(scenario_of(k)); });
  const SliceOrder o = slice_order(keys, [&](std::size_t k) { return slice_graph_tasks(scenario_of(k)); });
  if (options.prune && options.step_lower_bounds) {
    auto plain_label = [&](std::size_t k) {
      PlanCandidate c = all[kept[which[k]].index];
      c.order = "tp-cp-ep-dp-pp";
      return c.label();
    };
    auto bounds = [&](std::size_t first, const std::vector<std::size_t>& members) {
      std::vector<Scenario> ss;
      for (std::size_t k : members) ss.push_back(scenario_of(k));
      std::vector<double> b = options.step_lower_bounds(ss, scenario_of(first));
      if (b.size() != members.size()) throw std::logic_error("plan: step_lower_bounds gave a bound count unlike its members'");
      for (std::size_t j = 0; j < b.size(); ++j) b[j] = metric_bound(ss[j], metric, b[j]);
      return b;
    };
    predict_pruned(o, keys, bounds, plain_label, metric, options, predict_k, rs);
    return rs;
  }
  std::vector<double> weight = o.tasks;
  for (double& w : weight)
    if (w < kSmallSliceTasks) w = 0;
  for_each_index_within(o.firsts.size(), options.threads, weight, kSliceTasksAtOnce, [&](std::size_t i) { predict_k(o.firsts[i]); });
  for_each_index(o.rest.size(), options.threads, [&](std::size_t i) { predict_k(o.rest[i]); });
  return rs;
}

// Two results with exactly the same numbers.
bool same_numbers(const PointResult& a, const PointResult& b) {
  for (std::size_t i = 0; i < metric_names().size(); ++i) {
    const double x = metric_value(a, metric_names()[i]);
    const double y = metric_value(b, metric_names()[i]);
    if (!(x == y || (std::isnan(x) && std::isnan(y)))) return false;
  }
  return true;
}

// Entries whose predicted range overlaps the best one's within the error band of the job's class
// (step time, TTFT, tokens/s and MFU only: the band is measured on whole steps and prefills).
void mark_ties(const Scenario& base, std::vector<PlanEntry>& best, PlanOutcome& out) {
  const std::string& m = out.metric;
  const bool time = m == "step_s" || m == "ttft_s";
  const bool rate = m == "tokens_per_s_per_gpu" || m == "mfu" || m == "mfu_causal";
  const std::optional<accuracy::ErrorBand> band = accuracy::error_band_for(base);
  if (best.empty() || !band || (!time && !rate)) return;
  out.error_band = accuracy::describe(*band);
  const double a = metric_value(best.front().result, m);
  for (std::size_t i = 1; i < best.size(); ++i) {
    const double b = metric_value(best[i].result, m);
    best[i].ties_best = time ? band->time_low(b) <= band->time_high(a) : band->rate_high(b) >= band->rate_low(a);
    if (best[i].ties_best) best[i].explanation += "; a tie with #1 within the model's error band (" + out.error_band + ")";
  }
}

// The successful predictions, best first, at most `top`, each with its sentence. A layout that
// differs from a better-or-equal listed one only in dist.order and has the same numbers is listed
// once (its order noted on the listed entry).
std::vector<PlanEntry> rank_entries(const Scenario& base, const std::vector<PlanCandidate>& all,
                                    std::vector<KeptCandidate>& kept, std::vector<PointResult>& results, int gpus,
                                    const PlanOptions& options, PlanOutcome& out) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (results[i].status == PointStatus::Invalid && results[i].message == kNotPredicted) {
      ++out.not_predicted;
      continue;
    }
    if (results[i].status != PointStatus::Ok || std::isnan(metric_value(results[i], out.metric))) {
      ++out.failed;
      continue;
    }
    results[i].metrics.memory_per_gpu_bytes = kept[i].memory.total_bytes;
    ok.push_back(i);
  }
  const bool higher = metric_higher_is_better(out.metric);
  std::stable_sort(ok.begin(), ok.end(), [&](std::size_t a, std::size_t b) {
    const double va = metric_value(results[a], out.metric);
    const double vb = metric_value(results[b], out.metric);
    return higher ? va > vb : va < vb;
  });
  std::vector<PlanEntry> best;
  std::map<std::string, std::vector<std::size_t>> listed;   // label without order -> entries in `best`
  const std::size_t top = static_cast<std::size_t>(std::max(0, options.top));
  for (std::size_t i : ok) {
    PlanCandidate plain = all[kept[i].index];
    plain.order = "tp-cp-ep-dp-pp";
    auto& same = listed[plain.label()];
    const auto twin = std::find_if(same.begin(), same.end(), [&](std::size_t b) {
      return b < best.size() && same_numbers(best[b].result, results[i]);
    });
    if (twin != same.end()) {
      ++out.relabeled;
      best[*twin].same_numbers_orders.push_back(all[kept[i].index].order);
      continue;
    }
    if (best.size() >= top) continue;
    PlanEntry e;
    e.candidate = all[kept[i].index];
    e.scenario = apply_candidate(base, e.candidate, gpus);
    e.memory = std::move(kept[i].memory);
    e.result = std::move(results[i]);
    e.result.labels = {e.candidate.label()};
    e.result.comm_type = e.candidate.comm_label();
    e.result.fits = true;
    same.push_back(best.size());
    best.push_back(std::move(e));
  }
  for (PlanEntry& e : best) e.explanation = explain(e, best.front(), out.metric);
  mark_ties(base, best, out);
  return best;
}

// The kept closest misses predicted like the fitting layouts, with their memory and fits = false.
void predict_misses(const Scenario& base, int gpus, const PlanOptions& options, const ScenarioPredictor& predict,
                    PlanOutcome& out) {
  for_each_index(out.closest_misses.size(), options.threads, [&](std::size_t k) {
    PlanMiss& m = out.closest_misses[k];
    PointResult r = predict_one(predict, apply_candidate(base, m.candidate, gpus));
    r.metrics.memory_per_gpu_bytes = m.total_bytes;
    r.fits = false;
    r.labels = {m.candidate.label()};
    r.comm_type = m.candidate.comm_label();
    m.result = std::move(r);
  });
}

// Where pure a2a stops: cp must divide the KV heads per TP rank.
std::string pure_a2a_note(const Scenario& base, int gpus) {
  const int g = base.model.num_query_groups > 0 ? base.model.num_query_groups : base.model.num_attention_heads;
  std::string cap = "pure a2a needs cp <= KV heads per TP rank (" + std::to_string(g) + " KV heads):";
  for (int tp : divisors(std::min(base.cluster.gpus_per_node, gpus))) {
    const int gt = g >= tp ? g / tp : 1;
    cap += " tp=" + std::to_string(tp) + " -> cp <= " + std::to_string(gt) + ";";
  }
  cap.back() = '.';
  return cap;
}

}  // namespace

PlanOutcome plan(const Scenario& base_in, const PlanOptions& options, const ScenarioValidator& validate,
                 const ScenarioPredictor& predict, const SliceKey& slice_key) {
  const int gpus = options.gpus > 0 ? options.gpus : base_in.world_size();
  PlanOutcome out;
  out.metric = !options.metric.empty() ? options.metric
               : base_in.train.mode == TrainMode::Prefill ? "ttft_s"
                                                          : "tokens_per_s_per_gpu";
  out.global_batch = base_in.global_batch();
  (void)metric_value(PointResult{}, out.metric);   // unknown metric: throws before any work
  Scenario base = base_in;
  base.locations.clear();   // positions in the base file do not describe a generated candidate
  const std::vector<PlanCandidate> all = enumerate_candidates(base, gpus, options.search, options.memory);
  out.enumerated = all.size();
  PointDistribution* dist = is_distributed(options.distribution) ? options.distribution : nullptr;
  const std::size_t rank = dist != nullptr ? static_cast<std::size_t>(dist->rank()) : 0;
  const std::size_t size = dist != nullptr ? static_cast<std::size_t>(dist->size()) : 1;

  // 1. Validation and memory: candidate i on rank i mod size.
  std::vector<std::size_t> mine;
  for (std::size_t i = rank; i < all.size(); i += size) mine.push_back(i);
  CheckedCandidates checked = check_candidates(base, all, mine, gpus, options, validate, out, rank == 0);
  std::vector<KeptCandidate> kept =
      dist != nullptr ? share_kept(base, all, gpus, options, checked, out, *dist) : std::move(checked.kept);

  // 2. Predictions: under a distribution, whole model-parallel slices to the ranks in turn, in the
  //    order their first candidate appears.
  auto share = [&](const std::vector<std::size_t>& which) {
    return predict_share(base, all, kept, which, gpus, options, predict, slice_key, out.metric);
  };
  std::vector<PointResult> results;
  if (dist == nullptr) {
    std::vector<std::size_t> every(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) every[i] = i;
    results = share(every);
  } else {
    std::map<std::string, int> slice_owner;
    std::vector<int> owner(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const std::string key = slice_key ? slice_key(apply_candidate(base, all[kept[i].index], gpus)) : std::to_string(i);
      const auto it = slice_owner.emplace(key, static_cast<int>(slice_owner.size()) % dist->size()).first;
      owner[i] = it->second;
    }
    results = evaluate_distributed(kept.size(), owner, share, *dist);
    if (dist->rank() != 0) return out;
  }
  out.best = rank_entries(base, all, kept, results, gpus, options, out);
  if (options.predict_misses) predict_misses(base, gpus, options, predict, out);
  out.notes.push_back(pure_a2a_note(base, gpus));
  if (base.model.overlap_p2p_comm == true)
    out.notes.push_back("model.overlap_p2p_comm: true is used by the interleaved candidates (vpp >= 2); those "
                        "without interleaving block on their pipeline sends, as Megatron-LM runs them");
  return out;
}

}  // namespace hcpsim::planning
