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

// HyperParallel's modes for one cp (cp > 1): ulysses_degree unset, 1 (and 1 with load_balance), and
// every divisor in between, in each of `styles`. Async with load_balance falls back to the
// synchronous style (a duplicate) and DSA is Colossal only; both are left out. What the heads forbid
// (pure Ulysses beyond the KV heads, ...) is left to the validator, whose message the plan counts.
std::vector<PlanCandidate> hyperparallel_layouts(PlanCandidate c, const std::vector<HpStyle>& styles) {
  std::vector<PlanCandidate> out;
  c.hyperparallel = true;
  c.hierarchical.clear();
  for (HpStyle st : styles) {
    c.hp_style = st;
    std::vector<std::pair<int, bool>> modes;   // (ulysses_degree, load_balance)
    if (st == HpStyle::DSA || st == HpStyle::AsyncDSA) {
      modes = {{1, false}};
    } else {
      modes = {{0, false}, {1, false}};
      if (st == HpStyle::ContextParallel) modes.push_back({1, true});
      for (int u = 2; u < c.cp; ++u)
        if (c.cp % u == 0) modes.push_back({u, false});
    }
    for (const auto& [u, lb] : modes) {
      c.ulysses_degree = u;
      c.load_balance = lb;
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::string PlanCandidate::comm_label() const {
  if (cp == 1) return "none";
  if (!hyperparallel) return to_string(comm);
  HyperParallelConfig h;
  h.style = hp_style;
  h.ulysses_degree = ulysses_degree;
  h.load_balance = load_balance;
  return std::string("hp-") + to_string(h.mode(cp)) + "-u" + std::to_string(h.ulysses(cp)) + (load_balance ? "-lb" : "");
}

std::string PlanCandidate::label() const {
  std::string s = "tp=" + std::to_string(tp) + " cp=" + std::to_string(cp) + " dp=" + std::to_string(dp);
  if (hyperparallel) {
    HyperParallelConfig h;
    h.style = hp_style;
    h.ulysses_degree = ulysses_degree;
    s += " hp";
    if (hp_style == HpStyle::AsyncContextParallel || hp_style == HpStyle::AsyncDSA) s += " async";
    if (hp_style == HpStyle::DSA || hp_style == HpStyle::AsyncDSA) s += " dsa";
    s += std::string(" ") + to_string(h.mode(cp));
    if (h.mode(cp) == HpMode::Hybrid) s += " u=" + std::to_string(ulysses_degree);
    if (load_balance) s += " lb";
  } else {
    s += std::string(" ") + to_string(comm);
  }
  if (!hierarchical.empty())
    s += " [" + std::to_string(hierarchical[0]) + "," + std::to_string(hierarchical[1]) + "]";
  if (pp > 1) s += " pp=" + std::to_string(pp);
  if (vpp > 1) s += " vpp=" + std::to_string(vpp);
  if (mbs > 1) s += " mbs=" + std::to_string(mbs);
  if (recompute != Recompute::None) s += std::string(" recompute=") + to_string(recompute);
  if (!distributed_optimizer) s += " no-dist-opt";
  if (order != "tp-cp-ep-dp-pp") s += " " + order;
  return s;
}

std::vector<PlanCandidate> enumerate_candidates(const Scenario& base, int gpus, const PlanSearch& search,
                                                const MemoryOptions& memory) {
  const int gpn = base.cluster.gpus_per_node;
  if (gpus <= 0 || gpn <= 0 || (gpus % gpn != 0 && gpn % gpus != 0))
    throw std::invalid_argument("--gpus " + std::to_string(gpus) + ": must be a multiple of gpus_per_node (" +
                                std::to_string(gpn) + ") or a divisor of it");
  std::vector<PlanCandidate> out;
  const int L = base.model.num_layers;
  std::vector<int> pps;
  if (search.pipeline) {
    for (int pp : divisors(gpus))
      if (L > 0 && L % pp == 0) pps.push_back(pp);
  } else if (base.pp() > 0 && gpus % base.pp() == 0) {
    pps.push_back(base.pp());
  }
  const int gbs = base.global_batch();
  // Prefill has no backward and no optimizer: recomputation and the optimizer do not apply.
  const bool train = base.train.mode == TrainMode::Train;
  std::vector<Recompute> recomputes{train ? recompute_of(base, memory) : Recompute::None};
  if (train && search.recompute && !memory.recompute) recomputes = {Recompute::None, Recompute::Selective, Recompute::Full};
  std::vector<bool> dist_opts{memory.distributed_optimizer.value_or(base.ddp.use_distributed_optimizer)};
  // HyperParallel: asked for, or the base scenario is one (then in its own style).
  const bool base_hp = base.hyperparallel_cp();
  std::vector<HpStyle> hp_styles;
  if (base_hp) hp_styles = {base.hyperparallel.style};
  else if (search.hyperparallel) hp_styles = {HpStyle::ContextParallel, HpStyle::AsyncContextParallel};
  const bool megatron_cp = !(base_hp && base.hyperparallel.dsa());
  if (train && search.distributed_optimizer && !memory.distributed_optimizer) dist_opts = {true, false};
  for (int pp : pps) {
    std::vector<int> vpps{search.pipeline ? 1 : base.vpp()};
    if (search.pipeline && pp > 1)
      for (int v = 2; v <= search.max_vpp; ++v)
        if (L % (pp * v) == 0) vpps.push_back(v);
    std::vector<std::string> orders{"tp-cp-ep-dp-pp"};
    if (pp > 1) orders.push_back("tp-cp-ep-pp-dp");
    for (int tp : divisors(std::min(gpn, gpus))) {
      if ((gpus / pp) % tp != 0) continue;
      for (int cp : divisors(gpus / pp / tp)) {
        const int dp = gpus / pp / tp / cp;
        std::vector<int> mbss{base.train.micro_batch_size};
        if (search.micro_batch) {
          mbss.clear();
          for (int b : {1, 2, 4})
            if (gbs % (b * dp) == 0) mbss.push_back(b);
        }
        for (const std::string& order : orders) {
          if (order != orders.front() && dp == 1) continue;   // the orders differ only when dp > 1 and pp > 1
          PlanCandidate c{.tp = tp, .cp = cp, .dp = dp, .order = order, .pp = pp};
          std::vector<PlanCandidate> layouts;
          if (cp == 1) {
            if (megatron_cp) layouts.push_back(c);
          } else {
            if (megatron_cp) {
              for (CpCommType t : {CpCommType::P2P, CpCommType::AllGather, CpCommType::A2A}) {
                c.comm = t;
                layouts.push_back(c);
              }
              PlanCandidate h = c;
              h.comm = CpCommType::A2AP2P;
              for (int a = 2; a < cp; ++a) {
                if (cp % a) continue;
                h.hierarchical = {a, cp / a};
                layouts.push_back(h);
              }
            }
            // HyperParallel's mesh is (dp_shard, cp, tp): the default order only.
            if (!hp_styles.empty() && order == "tp-cp-ep-dp-pp")
              for (const PlanCandidate& h : hyperparallel_layouts(c, hp_styles)) layouts.push_back(h);
          }
          for (PlanCandidate l : layouts)
            for (int v : vpps)
              for (int b : mbss)
                for (Recompute r : recomputes)
                  for (bool d : dist_opts) {
                    l.vpp = v;
                    l.mbs = b;
                    l.recompute = r;
                    l.distributed_optimizer = d;
                    out.push_back(l);
                  }
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
  s.train.global_batch_size = base.global_batch();
  s.train.micro_batch_size = c.mbs;
  s.model.tensor_model_parallel_size = c.tp;
  s.model.context_parallel_size = c.cp;
  s.model.pipeline_model_parallel_size = c.pp;
  s.model.virtual_pipeline_model_parallel_size = c.vpp;
  s.model.cp_comm_type = {c.comm};
  s.model.hierarchical_context_parallel_sizes = c.hierarchical;
  s.model.sequence_parallel = c.tp > 1;   // Megatron-Bridge turns it on whenever tp > 1
  switch (c.recompute) {
    case Recompute::None: s.model.recompute_granularity = RecomputeGranularity::None; break;
    case Recompute::Selective: s.model.recompute_granularity = RecomputeGranularity::Selective; break;
    case Recompute::Full:
      s.model.recompute_granularity = RecomputeGranularity::Full;
      s.model.recompute_method = RecomputeMethod::Uniform;
      s.model.recompute_num_layers = 1;
      break;
  }
  // Positions in the base file do not describe a generated candidate's parallel layout; the
  // cluster's fields are the base's own, and whether the user set them decides which efficiency wins.
  std::erase_if(s.locations, [](const auto& kv) { return kv.first.rfind("cluster.", 0) != 0; });
  s.ddp.use_distributed_optimizer = c.distributed_optimizer;
  s.dist.order = c.order;
  s.hyperparallel.enabled = c.hyperparallel;
  if (c.hyperparallel) {
    s.hyperparallel.style = c.hp_style;
    s.hyperparallel.ulysses_degree = c.ulysses_degree;
    s.hyperparallel.load_balance = c.load_balance;
    s.hyperparallel.mesh_dim_names.clear();   // the base's names describe the base's mesh
    s.model.hierarchical_context_parallel_sizes.clear();
  }
  return s;
}

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

  // 1. Validation and memory: candidate i on rank i mod size. The other ranks report each verdict
  //    to rank 0 ({"i", "invalid" or "oom": reason}, or {"i"} for a candidate that is kept), and
  //    rank 0 tells every rank which candidates are kept.
  std::vector<PlanEntry> kept;
  std::vector<std::size_t> kept_at;   // candidate index of each kept entry
  std::vector<std::string> verdicts;
  const std::size_t report_every = std::max<std::size_t>(1, all.size() / 20);
  std::size_t checked = 0;
  auto count_invalid = [&](const std::string& why) {
    ++out.invalid;
    ++out.invalid_reasons[why];
  };
  auto count_oom = [&](const std::string& why) {
    ++out.out_of_memory;
    ++out.out_of_memory_reasons[why];
  };
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
      if (rank == 0) count_invalid(why);
      else verdicts.push_back(nlohmann::json{{"i", i}, {"invalid", why}}.dump());
      continue;
    }
    e.memory = estimate_memory(e.scenario, options.memory);
    if (!e.memory.fits) {
      if (rank == 0) count_oom(largest_memory_item(e.memory));
      else verdicts.push_back(nlohmann::json{{"i", i}, {"oom", largest_memory_item(e.memory)}}.dump());
      continue;
    }
    if (rank != 0) verdicts.push_back(nlohmann::json{{"i", i}}.dump());
    kept.push_back(std::move(e));
    kept_at.push_back(i);
  }
  out.enumerated = all.size();
  if (dist != nullptr) {
    const std::vector<std::string> received = gather_on_root(verdicts, *dist);
    std::vector<std::size_t> kept_index;
    if (rank == 0) {
      std::set<std::size_t> keep(kept_at.begin(), kept_at.end());
      for (const std::string& line : received) {
        nlohmann::json j;
        try {
          j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::exception& e) {
          throw std::runtime_error(std::string("a verdict from another rank is malformed: ") + e.what());
        }
        const std::size_t i = j.at("i").get<std::size_t>();
        if (i >= all.size()) throw std::runtime_error("a verdict from another rank names candidate " + std::to_string(i));
        if (j.contains("invalid")) count_invalid(j.at("invalid").get<std::string>());
        else if (j.contains("oom")) count_oom(j.at("oom").get<std::string>());
        else keep.insert(i);
      }
      kept_index.assign(keep.begin(), keep.end());   // ascending: the order of a single process
    }
    kept_index = decode_indices(dist->broadcast(rank == 0 ? encode_indices(kept_index) : std::string()));
    // Every rank now holds every kept candidate, in candidate order; rank 0 also their memory.
    std::map<std::size_t, PlanEntry> own;
    for (std::size_t k = 0; k < kept.size(); ++k) own.emplace(kept_at[k], std::move(kept[k]));
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
    kept = std::move(every);
  }

  // Predicts the kept candidates listed in `which`: in worker processes with jobs > 1, else here
  // (where a layer cache could make candidates of one slice share their backend run).
  auto predict_share = [&](const std::vector<std::size_t>& which) {
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
          options.progress(out.enumerated, all.size(), k + 1);
      }
    }
    return rs;
  };
  // 2. Predictions: under a distribution, whole model-parallel slices to the ranks in turn.
  std::vector<PointResult> results;
  if (dist == nullptr) {
    std::vector<std::size_t> every(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) every[i] = i;
    results = predict_share(every);
  } else {
    // Whole slices to ranks in turn, in the order their first candidate appears.
    std::map<std::string, int> slice_owner;
    std::vector<int> owner(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const std::string key = slice_key ? slice_key(kept[i].scenario) : std::to_string(i);
      const auto it = slice_owner.emplace(key, static_cast<int>(slice_owner.size()) % dist->size()).first;
      owner[i] = it->second;
    }
    results = evaluate_distributed(kept.size(), owner, predict_share, *dist);
    if (dist->rank() != 0) return out;
  }

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
