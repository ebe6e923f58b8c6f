// Enumerating the planner's candidates, their labels, and applying one to the base scenario.
#include <algorithm>
#include <stdexcept>

#include "engine/planning/planner.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::planning {
namespace {

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

std::vector<int> divisors(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

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
              for (const schedule::ScheduleDescriptor& d : schedule::schedules())
                if (d.planner_flat) {
                  c.comm = d.kind;
                  layouts.push_back(c);
                }
              for (const schedule::ScheduleDescriptor& d : schedule::schedules()) {
                if (!d.hierarchical()) continue;
                PlanCandidate h = c;
                h.comm = d.kind;
                for (int a = 2; a < cp; ++a) {
                  if (cp % a) continue;
                  h.hierarchical = {a, cp / a};
                  layouts.push_back(h);
                }
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

}  // namespace hcpsim::planning
