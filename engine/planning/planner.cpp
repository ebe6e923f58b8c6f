#include "engine/planning/planner.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

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

// A validation message with every number written as N, so that one rule counts as one class
// (digits inside words such as "a2a" stay).
std::string without_numbers(const std::string& m) {
  auto alpha = [&](std::size_t i) { return i < m.size() && std::isalpha(static_cast<unsigned char>(m[i])); };
  std::string out;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(m[i])) || (i > 0 && alpha(i - 1))) {
      out += m[i];
      continue;
    }
    std::size_t j = i;
    while (j + 1 < m.size() && (std::isdigit(static_cast<unsigned char>(m[j + 1])) || m[j + 1] == '.')) ++j;
    if (alpha(j + 1)) {
      out += m.substr(i, j - i + 1);
    } else {
      out += 'N';
    }
    i = j;
  }
  return out;
}

// "activations dominate" style class of an out-of-memory configuration.
std::string largest_memory_item(const MemoryEstimate& m) {
  const std::pair<const char*, double> items[] = {
      {"weights", m.weights_bytes},         {"gradients", m.gradients_bytes},
      {"optimizer states", m.optimizer_bytes}, {"activations", m.activations_bytes},
      {"logits", m.logits_bytes},           {"kv cache", m.kv_cache_bytes},
      {"cp buffers", m.cp_buffers_bytes}};
  const auto* best = &items[0];
  for (const auto& it : items)
    if (it.second > best->second) best = &it;
  return std::string("largest item: ") + best->first;
}

// What step 1 of a plan leaves: the kept candidates (with their index in the enumeration) and, on a
// rank other than 0, the verdicts to send to rank 0.
struct Checked {
  std::vector<PlanEntry> kept;
  std::vector<std::size_t> kept_at;
  std::vector<std::string> verdicts;
};

void count_invalid(PlanOutcome& out, const std::string& why) {
  ++out.invalid;
  ++out.invalid_reasons[why];
}

void count_oom(PlanOutcome& out, const std::string& why) {
  ++out.out_of_memory;
  ++out.out_of_memory_reasons[why];
}

// 1. Validation and memory: candidate i on rank i mod size. The other ranks report each verdict to
//    rank 0 ({"i", "invalid" or "oom": reason}, or {"i"} for a candidate that is kept).
Checked check_candidates(const Scenario& base, const std::vector<PlanCandidate>& all, int gpus,
                         const PlanOptions& options, const ScenarioValidator& validate, PlanOutcome& out,
                         std::size_t rank, std::size_t size) {
  Checked c;
  const std::size_t report_every = std::max<std::size_t>(1, all.size() / 20);
  std::size_t checked = 0;
  for (std::size_t i = rank; i < all.size(); i += size) {
    checked += size;
    if (options.progress && checked / report_every != (checked - size) / report_every)
      options.progress(std::min(checked, all.size()), all.size(), 0);
    PlanEntry e;
    e.candidate = all[i];
    e.scenario = apply_candidate(base, all[i], gpus);
    const Diagnostics d = validate(e.scenario);
    if (d.has_errors()) {
      std::string why = "invalid";
      for (const Diagnostic& x : d.items())
        if (x.severity == Severity::Error) {
          why = x.path + ": " + without_numbers(x.message);
          break;
        }
      if (rank == 0) count_invalid(out, why);
      else c.verdicts.push_back(nlohmann::json{{"i", i}, {"invalid", why}}.dump());
      continue;
    }
    e.memory = estimate_memory(e.scenario, options.memory);
    if (!e.memory.fits) {
      if (rank == 0) count_oom(out, largest_memory_item(e.memory));
      else c.verdicts.push_back(nlohmann::json{{"i", i}, {"oom", largest_memory_item(e.memory)}}.dump());
      continue;
    }
    if (rank != 0) c.verdicts.push_back(nlohmann::json{{"i", i}}.dump());
    c.kept.push_back(std::move(e));
    c.kept_at.push_back(i);
  }
  return c;
}

// Rank 0 counts the other ranks' verdicts and tells every rank which candidates are kept; every rank
// then holds every kept candidate, in candidate order (rank 0 also their memory).
std::vector<PlanEntry> share_kept(const Scenario& base, const std::vector<PlanCandidate>& all, int gpus,
                                  const PlanOptions& options, Checked& c, PlanOutcome& out, PointDistribution& dist) {
  const std::size_t rank = static_cast<std::size_t>(dist.rank());
  const std::vector<std::string> received = gather_on_root(c.verdicts, dist);
  std::vector<std::size_t> kept_index;
  if (rank == 0) {
    std::set<std::size_t> keep(c.kept_at.begin(), c.kept_at.end());
    for (const std::string& line : received) {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("a verdict from another rank is malformed: ") + e.what());
      }
      const std::size_t i = j.at("i").get<std::size_t>();
      if (i >= all.size()) throw std::runtime_error("a verdict from another rank names candidate " + std::to_string(i));
      if (j.contains("invalid")) count_invalid(out, j.at("invalid").get<std::string>());
      else if (j.contains("oom")) count_oom(out, j.at("oom").get<std::string>());
      else keep.insert(i);
    }
    kept_index.assign(keep.begin(), keep.end());   // ascending: the order of a single process
  }
  kept_index = decode_indices(dist.broadcast(rank == 0 ? encode_indices(kept_index) : std::string()));
  std::map<std::size_t, PlanEntry> own;
  for (std::size_t k = 0; k < c.kept.size(); ++k) own.emplace(c.kept_at[k], std::move(c.kept[k]));
  std::vector<PlanEntry> every;
  for (std::size_t i : kept_index) {
    if (i >= all.size()) throw std::runtime_error("rank 0 kept candidate " + std::to_string(i) + " of " +
                                                  std::to_string(all.size()) + ": the ranks enumerated different lists");
    const auto it = own.find(i);
    if (it != own.end()) {
      every.push_back(std::move(it->second));
      continue;
    }
    PlanEntry e;
    e.candidate = all[i];
    e.scenario = apply_candidate(base, all[i], gpus);
    if (rank == 0) e.memory = estimate_memory(e.scenario, options.memory);
    every.push_back(std::move(e));
  }
  return every;
}

// Predicts the kept candidates listed in `which`: in worker processes with jobs > 1, else here
// (where a layer cache could make candidates of one slice share their backend run).
std::vector<PointResult> predict_share(const std::vector<PlanEntry>& kept, const std::vector<std::size_t>& which,
                                       const PlanOptions& options, const ScenarioPredictor& predict,
                                       std::size_t enumerated) {
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
      return predict_one(predict, kept[which[p.index]].scenario);
    }, ro);
    for (const PointResult& r : so.results) rs[std::stoul(r.labels[0])] = r;
  } else {
    for (std::size_t k = 0; k < which.size(); ++k) {
      rs[k] = predict_one(predict, kept[which[k]].scenario);
      if (options.progress && (k + 1) % std::max<std::size_t>(1, which.size() / 20) == 0)
        options.progress(enumerated, enumerated, k + 1);
    }
  }
  return rs;
}

// The successful predictions, best first, at most `top`, each with its sentence.
std::vector<PlanEntry> rank_entries(std::vector<PlanEntry>& kept, const std::vector<PointResult>& results,
                                    const PlanOptions& options, PlanOutcome& out) {
  std::vector<PlanEntry> ok;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    PlanEntry& e = kept[i];
    e.result = results[i];
    e.result.labels = {e.candidate.label()};
    e.result.comm_type = e.candidate.comm_label();
    e.result.fits = true;
    e.result.metrics.memory_per_gpu_bytes = e.memory.total_bytes;
    if (e.result.status != PointStatus::Ok || std::isnan(metric_value(e.result, out.metric))) {
      ++out.failed;
      continue;
    }
    ok.push_back(std::move(e));
  }
  const bool higher = metric_higher_is_better(out.metric);
  std::stable_sort(ok.begin(), ok.end(), [&](const PlanEntry& a, const PlanEntry& b) {
    const double va = metric_value(a.result, out.metric);
    const double vb = metric_value(b.result, out.metric);
    return higher ? va > vb : va < vb;
  });
  if (ok.size() > static_cast<std::size_t>(std::max(0, options.top))) ok.resize(std::max(0, options.top));
  for (PlanEntry& e : ok) e.explanation = explain(e, ok.front(), out.metric);
  return ok;
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

PlanOutcome plan(const Scenario& base, const PlanOptions& options, const ScenarioValidator& validate,
                 const ScenarioPredictor& predict, const SliceKey& slice_key) {
  const int gpus = options.gpus > 0 ? options.gpus : base.world_size();
  PlanOutcome out;
  out.metric = !options.metric.empty() ? options.metric
               : base.train.mode == TrainMode::Prefill ? "ttft_s"
                                                       : "tokens_per_s_per_gpu";
  out.global_batch = base.global_batch();
  (void)metric_value(PointResult{}, out.metric);   // unknown metric: throws before any work
  const std::vector<PlanCandidate> all = enumerate_candidates(base, gpus, options.search, options.memory);
  PointDistribution* dist = is_distributed(options.distribution) ? options.distribution : nullptr;
  const std::size_t rank = dist != nullptr ? static_cast<std::size_t>(dist->rank()) : 0;
  const std::size_t size = dist != nullptr ? static_cast<std::size_t>(dist->size()) : 1;

  Checked checked = check_candidates(base, all, gpus, options, validate, out, rank, size);
  out.enumerated = all.size();
  std::vector<PlanEntry> kept =
      dist != nullptr ? share_kept(base, all, gpus, options, checked, out, *dist) : std::move(checked.kept);

  // 2. Predictions: under a distribution, whole model-parallel slices to the ranks in turn, in the
  //    order their first candidate appears.
  auto share = [&](const std::vector<std::size_t>& which) {
    return predict_share(kept, which, options, predict, all.size());
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
      const std::string key = slice_key ? slice_key(kept[i].scenario) : std::to_string(i);
      const auto it = slice_owner.emplace(key, static_cast<int>(slice_owner.size()) % dist->size()).first;
      owner[i] = it->second;
    }
    results = evaluate_distributed(kept.size(), owner, share, *dist);
    if (dist->rank() != 0) return out;
  }
  out.best = rank_entries(kept, results, options, out);
  out.notes.push_back(pure_a2a_note(base, gpus));
  return out;
}

}  // namespace hcpsim::planning
