#include "engine/reference/verify.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "engine/layout/rank_layout.h"
#include "engine/reference/data_loader.h"
#include "engine/reference/dense_attention.h"
#include "engine/reference/dsa_indexer.h"
#include "engine/schedule/build.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::reference {

namespace {

int total_kv_heads(const Scenario& s) {
  return s.model.num_query_groups > 0 ? s.model.num_query_groups : s.model.num_attention_heads;
}

// The a2a degree a layer of this type imposes on heads per TP rank.
int a2a_degree(const Scenario& s, CpCommType t) {
  if (s.hyperparallel_cp()) return s.hyperparallel.ulysses(s.cp());   // cp_comm_type does not apply
  return schedule::a2a_size(schedule::schedule_of(t), s);
}

struct Accum {
  Tensor<double> out, dq, dk, dv;
  std::vector<int> out_cover;
};

template <typename T, typename U>
Tensor<T> cast(const Tensor<U>& x) {
  Tensor<T> o(x.B, x.L, x.H, x.D);
  for (std::size_t i = 0; i < x.v.size(); ++i) o.v[i] = static_cast<T>(x.v[i]);
  return o;
}

// DSA: the keys every query keeps, from the whole sequence's indexer inputs, in the executor's
// precision (the ranks select with the same function on their query slice against gathered keys).
Tensor<double> dsa_keep(const Scenario& s, std::uint64_t seed, int layer, bool use_float) {
  const auto qi = global_input(s, seed, layer, InputTensor::IndexQ);
  const auto ki = global_input(s, seed, layer, InputTensor::IndexK);
  const auto w = global_input(s, seed, layer, InputTensor::IndexW);
  const bool causal = s.model.attn_mask_type == MaskType::Causal;
  const std::int64_t k = s.model.dsa.index_topk;
  if (!use_float) return indexer_keep(qi, ki, w, 0, k, causal);
  return cast<double>(indexer_keep(cast<float>(qi), cast<float>(ki), cast<float>(w), 0, k, causal));
}

double rel_error(const Tensor<double>& x, const Tensor<double>& ref) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < ref.v.size(); ++i) {
    if (!std::isfinite(x.v[i])) return INFINITY;   // a NaN would otherwise vanish in std::max
    num = std::max(num, std::abs(x.v[i] - ref.v[i]));
    den = std::max(den, std::abs(ref.v[i]));
  }
  return den > 0 ? num / den : num;
}

}  // namespace

Scenario shrink_for_cpu(const Scenario& src) {
  Scenario s = src;
  const int tp = src.tp(), cp = src.cp();
  const int h = src.model.num_attention_heads, g = total_kv_heads(src);
  if (h <= 0 || g <= 0 || h % g != 0)
    throw std::invalid_argument("verify: num_attention_heads (" + std::to_string(h) +
                                ") must be a positive multiple of num_query_groups (" + std::to_string(g) + ")");
  // one layer per distinct comm type
  std::vector<CpCommType> types;
  const int L = std::max(1, src.model.num_layers);
  for (int l = 0; l < L; ++l) {
    const CpCommType t = src.comm_type_for_layer(l);
    if (std::find(types.begin(), types.end(), t) == types.end()) types.push_back(t);
  }
  int degree = 1;
  for (CpCommType t : types) degree = std::lcm(degree, a2a_degree(src, t));
  const int ratio = h / g;
  int g_new = g, h_new = h;
  if (g >= tp) {
    g_new = tp * degree;            // g_t = degree
    h_new = ratio * g_new;
  }                                  // g < tp: KV replicated; keep the original head counts
  s.model.num_layers = static_cast<int>(types.size());
  s.model.cp_comm_type = types;
  s.model.num_attention_heads = h_new;
  s.model.num_query_groups = g_new;
  s.model.kv_channels = 8;
  s.model.hidden_size = h_new * 8;
  s.model.ffn_hidden_size = 0;
  s.model.seq_length = 2LL * cp * 4;
  s.model.pipeline_model_parallel_size = 1;
  s.train.micro_batch_size = std::min(2, std::max(1, src.train.micro_batch_size));
  s.cluster.nodes = 1;
  s.cluster.gpus_per_node = tp * cp;
  s.cluster.faults.clear();
  s.simulation.layers = static_cast<int>(types.size());
  if (s.model.dsa.enabled) {   // DSA: keep the top-k a real selection at the small length (a quarter of the keys)
    s.model.dsa.index_topk = static_cast<int>(std::clamp<std::int64_t>(src.model.dsa.index_topk, 1, s.model.seq_length / 4));
    s.model.dsa.index_n_heads = std::min(src.model.dsa.index_n_heads, 4);
    s.model.dsa.index_head_dim = std::min(src.model.dsa.index_head_dim, 8);
  }
  s.simulation.forward = true;
  s.simulation.backward = true;
  return s;
}

VerifyResult verify_scenario(const Scenario& s, const VerifyOptions& opt) {
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions go;
  go.forward = go.backward = true;
  go.layers = std::max(1, s.simulation.layers);
  go.with_payloads = true;
  go.silent_disable_pitfall = opt.silent_disable_pitfall;
  // AsyncContextParallel: its projections are part of what is checked (each early collective reads
  // its projection's output).
  go.hp_projections = s.hyperparallel_cp() && s.hyperparallel.async_effective();
  const TaskGraph graph = build_task_graph(s, layout, go);
  const ExecResult ex = execute_reference(graph, s, layout, opt.exec);
  VerifyResult r = compare_with_dense(s, layout, go.layers, opt.exec.seed,
                                      opt.tolerance > 0 ? opt.tolerance : (opt.exec.use_float ? 1e-4 : 1e-5), ex.results,
                                      opt.exec.use_float);
  r.tasks = ex.tasks_run;
  return r;
}

VerifyResult compare_with_dense(const Scenario& s, const RankLayout& layout, int layers, std::uint64_t seed,
                                double tolerance, const std::vector<std::map<int, RankLayerResult>>& results,
                                bool use_float) {
  VerifyResult r;
  r.tolerance = tolerance;
  r.layers = layers;
  const std::int64_t S = s.model.seq_length, sl = S / s.cp();
  const bool causal = s.model.attn_mask_type == MaskType::Causal;
  auto note = [&](const std::string& m) {
    if (r.detail.empty()) r.detail = m;
  };
  for (int l = 0; l < layers; ++l) {
    const auto q = global_input(s, seed, l, InputTensor::Q);
    const auto k = global_input(s, seed, l, InputTensor::K);
    const auto v = global_input(s, seed, l, InputTensor::V);
    const auto dout = global_input(s, seed, l, InputTensor::DOut);
    const bool dsa = s.hyperparallel_cp() && s.hyperparallel.dsa();
    const Tensor<double> keep = dsa ? dsa_keep(s, seed, l, use_float) : Tensor<double>{};
    const DenseResult ref = dense_attention(q, k, v, dout, causal, dsa ? &keep : nullptr);
    std::map<int, Accum> replicas;   // keyed by dp * pp_size + pp
    for (int rank = 0; rank < layout.world_size(); ++rank) {
      const RankCoord& c = layout.coord(rank);
      auto [it, fresh] = replicas.try_emplace(c.dp * layout.pp() + c.pp);
      Accum& A = it->second;
      if (fresh) {
        A.out = Tensor<double>(ref.out.B, ref.out.L, ref.out.H, ref.out.D);
        A.dq = Tensor<double>(ref.dq.B, ref.dq.L, ref.dq.H, ref.dq.D);
        A.dk = Tensor<double>(ref.dk.B, ref.dk.L, ref.dk.H, ref.dk.D);
        A.dv = Tensor<double>(ref.dv.B, ref.dv.L, ref.dv.H, ref.dv.D);
        A.out_cover.assign(static_cast<std::size_t>(ref.out.B * ref.out.L * ref.out.H), 0);
      }
      const auto& by_layer = results.at(static_cast<std::size_t>(rank));
      const auto found = by_layer.find(l);
      if (found == by_layer.end()) {
        note("rank " + std::to_string(rank) + " layer " + std::to_string(l) + " has no results");
        r.out = r.dq = r.dk = r.dv = INFINITY;
        continue;
      }
      const RankLayerResult& res = found->second;
      if (res.out.v.empty() || res.dq.v.empty() || res.dk.v.empty() || res.dv.v.empty()) {
        note("rank " + std::to_string(rank) + " layer " + std::to_string(l) + " did not produce all of O, dQ, dK, dV");
        r.out = r.dq = r.dk = r.dv = INFINITY;
        continue;
      }
      for (std::int64_t b = 0; b < res.out.B; ++b)
        for (std::int64_t t = 0; t < sl; ++t) {
          const std::int64_t tok = global_token_of(s, t, c.cp);
          for (std::int64_t j = 0; j < res.out.H; ++j) {
            const std::int64_t gh = global_q_head(s, c.tp, j);
            const auto cov = static_cast<std::size_t>((b * S + tok) * ref.out.H + gh);
            ++A.out_cover[cov];
            for (std::int64_t d = 0; d < res.out.D; ++d) A.out.at(b, tok, gh, d) = res.out.at(b, t, j, d);
            for (std::int64_t d = 0; d < res.dq.D; ++d) A.dq.at(b, tok, gh, d) = res.dq.at(b, t, j, d);
          }
          for (std::int64_t j = 0; j < res.dk.H; ++j) {
            const std::int64_t gk = global_kv_head(s, c.tp, j);
            for (std::int64_t d = 0; d < res.dk.D; ++d) A.dk.at(b, tok, gk, d) += res.dk.at(b, t, j, d);
            for (std::int64_t d = 0; d < res.dv.D; ++d) A.dv.at(b, tok, gk, d) += res.dv.at(b, t, j, d);
          }
        }
    }
    for (auto& [key, A] : replicas) {
      for (std::size_t i = 0; i < A.out_cover.size(); ++i)
        if (A.out_cover[i] != 1) {
          note("layer " + std::to_string(l) + ": an output row is produced " + std::to_string(A.out_cover[i]) +
               " times (expected once)");
          r.out = INFINITY;
          break;
        }
      r.out = std::max(r.out, rel_error(A.out, ref.out));
      r.dq = std::max(r.dq, rel_error(A.dq, ref.dq));
      r.dk = std::max(r.dk, rel_error(A.dk, ref.dk));
      r.dv = std::max(r.dv, rel_error(A.dv, ref.dv));
    }
  }
  r.ok = r.out < r.tolerance && r.dq < r.tolerance && r.dk < r.tolerance && r.dv < r.tolerance;
  return r;
}

}  // namespace hcpsim::reference
