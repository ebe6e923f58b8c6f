// Enumerating the planner's candidates, their labels, and applying one to the base scenario.
#include <algorithm>
#include <stdexcept>

#include "engine/planning/planner.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/schedule/hp_styles.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::planning {
namespace {

// HyperParallel's modes for one cp (cp > 1) in each of `styles`, as each style's row lists them.
std::vector<PlanCandidate> hyperparallel_layouts(PlanCandidate c, const std::vector<HpStyle>& styles) {
  std::vector<PlanCandidate> out;
  c.hyperparallel = true;
  c.hierarchical.clear();
  for (HpStyle st : styles) {
    c.hp_style = st;
    for (const schedule::HpModeChoice& m : schedule::hp_style_of(st).planner_modes(c.cp)) {
      c.ulysses_degree = m.ulysses_degree;
      c.load_balance = m.load_balance;
      out.push_back(c);
    }
  }
  return out;
}

// Megatron's uneven splits of L layers over pp stages when pp does not divide L (each with the vpp
// sizes it allows): the middle stages hold q layers, q the smallest multiple of vpp >= L / pp (the
// slowest stage sets the pipeline's pace), and the first and last stages share the rest, the last
// (which also runs the output layer and the loss) the lighter; and the embedding and / or the loss
// counted as a layer where L + 1 or L + 2 divides by pp. Splits with the same layers in every chunk
// are listed once.
std::vector<PlanCandidate> uneven_splits(const PlanCandidate& c, int L, int max_vpp) {
  std::vector<PlanCandidate> out;
  std::vector<std::pair<int, std::vector<std::vector<int>>>> seen;   // (vpp, layers per chunk)
  auto add = [&](PlanCandidate u) {
    ModelConfig m;
    m.num_layers = L;
    m.pipeline_model_parallel_size = u.pp;
    m.virtual_pipeline_model_parallel_size = u.vpp;
    if (u.first_stage_layers > 0) m.decoder_first_pipeline_num_layers = u.first_stage_layers;
    if (u.last_stage_layers > 0) m.decoder_last_pipeline_num_layers = u.last_stage_layers;
    m.account_for_embedding_in_pipeline_split = u.embedding_in_split;
    m.account_for_loss_in_pipeline_split = u.loss_in_split;
    if (pipeline_split_problem(m)) return;
    auto key = std::pair{u.vpp, pipeline_split(m)};
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
    seen.push_back(std::move(key));
    out.push_back(u);
  };
  const int p = c.pp;
  if (p < 2 || p > L || L % p == 0) return out;
  for (int v = 1; v <= std::max(1, max_vpp); ++v) {
    const int q = ((L + p - 1) / p + v - 1) / v * v;
    const int rest = L - (p - 2) * q;
    for (int last = rest / 2 / v * v; last >= v && rest - last <= q; last -= v) {
      if ((rest - last) % v != 0 || rest - last < v) continue;
      PlanCandidate u = c;
      u.vpp = v;
      u.first_stage_layers = rest - last;
      u.last_stage_layers = last;
      add(u);
      break;
    }
    for (const auto& [emb, loss] : {std::pair{true, true}, {false, true}, {true, false}}) {
      PlanCandidate u = c;
      u.vpp = v;
      u.embedding_in_split = emb;
      u.loss_in_split = loss;
      add(u);
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

namespace {

HyperParallelConfig hyperparallel_of(const PlanCandidate& c) {
  HyperParallelConfig h;
  h.enabled = c.hyperparallel;
  h.style = c.hp_style;
  h.ulysses_degree = c.ulysses_degree;
  h.load_balance = c.load_balance;
  return h;
}

}  // namespace

std::string PlanCandidate::comm_label() const {
  if (cp == 1) return "none";
  if (!hyperparallel) return to_string(comm);
  return schedule::hp_comm_label(hyperparallel_of(*this), cp);
}

std::string PlanCandidate::label() const {
  std::string s = "tp=" + std::to_string(tp) + " cp=" + std::to_string(cp) + " dp=" + std::to_string(dp);
  if (hyperparallel) {
    s += " " + schedule::hp_label(hyperparallel_of(*this), cp);
  } else {
    s += std::string(" ") + to_string(comm);
  }
  if (!hierarchical.empty())
    s += " [" + std::to_string(hierarchical[0]) + "," + std::to_string(hierarchical[1]) + "]";
  if (pp > 1) s += " pp=" + std::to_string(pp);
  if (vpp > 1) s += " vpp=" + std::to_string(vpp);
  if (first_stage_layers > 0) s += " first=" + std::to_string(first_stage_layers);
  if (last_stage_layers > 0) s += " last=" + std::to_string(last_stage_layers);
  if (embedding_in_split) s += " embedding-in-split";
  if (loss_in_split) s += " loss-in-split";
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
    for (int pp : divisors(gpus))   // pp that does not divide num_layers: uneven splits (uneven_splits)
      if (L > 0 && pp <= L) pps.push_back(pp);
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
  if (base_hp) {
    hp_styles = {base.hyperparallel.style};
  } else if (search.hyperparallel) {
    for (const schedule::HpStyleDescriptor& d : schedule::hp_styles())
      if (d.planner_default) hp_styles.push_back(d.style);
  }
  const bool megatron_cp = !(base_hp && base.hyperparallel.dsa());
  if (train && search.distributed_optimizer && !memory.distributed_optimizer) dist_opts = {true, false};
  for (int pp : pps) {
    std::vector<int> vpps{search.pipeline ? 1 : base.vpp()};
    if (search.pipeline && pp > 1)
      for (int v = 2; v <= search.max_vpp; ++v)
        if (L % (pp * v) == 0) vpps.push_back(v);
    // The pipeline split: even with its vpp sizes, or Megatron's uneven splits when pp does not
    // divide num_layers; without the pipeline search, the base's own split.
    std::vector<PlanCandidate> splits;
    if (search.pipeline && L % pp != 0) {
      splits = uneven_splits(PlanCandidate{.pp = pp}, L, search.max_vpp);
    } else {
      for (int v : vpps) splits.push_back(PlanCandidate{.pp = pp, .vpp = v});
      if (!search.pipeline) {
        PlanCandidate& b = splits.back();
        b.first_stage_layers = base.model.decoder_first_pipeline_num_layers.value_or(0);
        b.last_stage_layers = base.model.decoder_last_pipeline_num_layers.value_or(0);
        b.embedding_in_split = base.model.account_for_embedding_in_pipeline_split;
        b.loss_in_split = base.model.account_for_loss_in_pipeline_split;
      }
    }
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
            for (const PlanCandidate& split : splits)
              for (int b : mbss)
                for (Recompute r : recomputes)
                  for (bool d : dist_opts) {
                    l.vpp = split.vpp;
                    l.first_stage_layers = split.first_stage_layers;
                    l.last_stage_layers = split.last_stage_layers;
                    l.embedding_in_split = split.embedding_in_split;
                    l.loss_in_split = split.loss_in_split;
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
  // A stated overlap_p2p_comm: true is the interleaved schedule's option; a candidate without
  // interleaving runs as Megatron-LM runs it (off), and the plan's notes say so (planner.cpp).
  if (c.vpp < 2 && s.model.overlap_p2p_comm == true) s.model.overlap_p2p_comm.reset();
  s.model.decoder_first_pipeline_num_layers.reset();
  s.model.decoder_last_pipeline_num_layers.reset();
  if (c.first_stage_layers > 0) s.model.decoder_first_pipeline_num_layers = c.first_stage_layers;
  if (c.last_stage_layers > 0) s.model.decoder_last_pipeline_num_layers = c.last_stage_layers;
  s.model.account_for_embedding_in_pipeline_split = c.embedding_in_split;
  s.model.account_for_loss_in_pipeline_split = c.loss_in_split;
  s.model.cp_comm_type = {c.comm};
  s.model.hierarchical_context_parallel_sizes = c.hierarchical;
  s.model.sequence_parallel = c.tp > 1;   // Megatron-Bridge turns it on whenever tp > 1
  // The base's recomputation (granularity, method, layers) stays as stated while the candidate keeps
  // its memory class; only a different, searched class replaces it. So torchtitan's selective_op and
  // DistFlashAttn's non_attention, or full with the block method, survive a layout-only search.
  if (c.recompute != recompute_of(base)) switch (c.recompute) {
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
