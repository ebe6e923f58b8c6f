// HyperParallel CP rules (docs/scenario.md "HyperParallel"). Messages quote HyperParallel's
// ValueErrors where it raises one ("cp_size (8) must be divisible by ulysses_degree (3).").
#include "engine/validate/validate_hyperparallel.h"

#include "engine/validate/field_ranges.h"

namespace hcpsim {

namespace {

std::string divisors_of(int n) {
  std::string s;
  for (int d = 1; d <= n; ++d)
    if (n % d == 0) s += (s.empty() ? "" : ", ") + std::to_string(d);
  return s;
}

class HpChecker {
 public:
  explicit HpChecker(const Scenario& s) : s_(s) {}
  void error(const std::string& path, std::string m, std::vector<std::string> h = {}) {
    add_scenario_diagnostic(d_, s_, Severity::Error, path, std::move(m), std::move(h));
  }
  void warning(const std::string& path, std::string m, std::vector<std::string> h = {}) {
    add_scenario_diagnostic(d_, s_, Severity::Warning, path, std::move(m), std::move(h));
  }
  bool given(const std::string& path) const { return s_.locations.count(path) > 0; }
  Diagnostics take() { return std::move(d_); }

 private:
  const Scenario& s_;
  Diagnostics d_;
};

// Fields of the Megatron/TE route that the HyperParallel route replaces.
void check_replaced_fields(const Scenario& s, HpChecker& c) {
  if (c.given("model.cp_comm_type"))
    c.warning("model.cp_comm_type",
              "cp_comm_type does not apply with a hyperparallel: section and is ignored: HyperParallel's mode is "
              "chosen by hyperparallel.ulysses_degree",
              {"remove model.cp_comm_type, or remove the hyperparallel: section to model Megatron-Core / TE"});
  if (!s.model.hierarchical_context_parallel_sizes.empty()) {
    const auto& h = s.model.hierarchical_context_parallel_sizes;
    c.error("model.hierarchical_context_parallel_sizes",
            "hierarchical_context_parallel_sizes is Megatron-Core's a2a+p2p split and does not apply with a "
            "hyperparallel: section",
            {h.size() == 2 ? "HyperParallel's hybrid is hyperparallel.ulysses_degree: " + std::to_string(h[0]) +
                                 " (all-to-all in groups of " + std::to_string(h[0]) + ", then a K/V all-gather across " +
                                 std::to_string(h[1]) + ")"
                           : std::string("use hyperparallel.ulysses_degree for HyperParallel's hybrid")});
  }
  if (c.given("dist.order") && s.dist.order != "tp-cp-ep-dp-pp")
    c.error("dist.order",
            "HyperParallel's device mesh is (dp_shard, cp, tp) with tp varying fastest, which is the order "
            "tp-cp-ep-dp-pp; '" + s.dist.order + "' does not apply",
            {"remove dist.order"});
}

void check_modes(const Scenario& s, HpChecker& c) {
  const auto& hp = s.hyperparallel;
  const int cp = s.cp();
  const int h_t = s.tp() > 0 ? s.model.num_attention_heads / s.tp() : 0;
  const int g_t = s.kv_heads_per_tp_rank();
  const bool dsa = hp.dsa();
  const int best = largest_ulysses_degree(cp, h_t, g_t);
  const std::string heads = "num_heads per TP rank: query " + std::to_string(h_t) + ", key/value " + std::to_string(g_t);
  const std::string beyond =
      best > 1 && best < cp
          ? "to reach cp=" + std::to_string(cp) + " beyond the heads use the hybrid: ulysses_degree: " +
                std::to_string(best) + " (all-to-all in groups of " + std::to_string(best) +
                ", then K/V all-gather across " + std::to_string(cp / best) + ")"
          : "ulysses_degree: 1 (pure Colossal AI: K/V all-gather, no head constraint)";
  if (cp == 1) c.warning("model.context_parallel_size", "context_parallel_size is 1: the hyperparallel: section has no effect");
  if (dsa) {
    if (hp.ulysses_degree > 1)
      c.error("hyperparallel.ulysses_degree",
              "DSA CP only supports mode=\"colossal\"; mode=\"ulysses\" raises an error (ulysses_degree " +
                  std::to_string(hp.ulysses_degree) + ")",
              {"remove ulysses_degree (DSA is always Colossal: query side sequence-sharded, key side all-gathered)"});
    if (hp.load_balance)
      c.error("hyperparallel.load_balance", "the DSA styles have no load_balance option",
              {"load_balance is a ContextParallel / AsyncContextParallel option with ulysses_degree: 1"});
    if (!s.model.dsa.enabled)
      c.error("hyperparallel.style", std::string("style ") + to_string(hp.style) +
                                         " needs model.dsa: {index_topk, index_n_heads, index_head_dim}",
              {"DeepSeek-V3.2: model.dsa: {index_topk: 2048, index_n_heads: 64, index_head_dim: 128}"});
  } else {
    if (hp.layout_given)
      c.warning("hyperparallel.layout", "layout applies to the DSA styles only and is ignored for " +
                                            std::string(to_string(hp.style)),
                {"ContextParallel takes seq_dim/head_dim (BSHD or BNSD), which do not change the schedule"});
    if (s.model.dsa.enabled)
      c.warning("model.dsa", "model.dsa is used only with hyperparallel.style: DSA or AsyncDSA and is ignored here");
  }
  if (hp.ulysses_degree > 0 && !dsa) {
    const int u = hp.ulysses_degree;
    if (u > cp || cp % u != 0) {
      c.error("hyperparallel.ulysses_degree",
              "cp_size (" + std::to_string(cp) + ") must be divisible by ulysses_degree (" + std::to_string(u) + ").",
              {"valid ulysses_degree for cp=" + std::to_string(cp) + ": " + divisors_of(cp) +
               " (1 = pure Colossal AI, " + std::to_string(cp) + " = pure Ulysses)"});
      return;
    }
  }
  const int u = hp.ulysses(cp);
  const HpMode mode = hp.mode(cp);
  if (mode == HpMode::Ulysses && cp > 1 && h_t > 0 && (h_t % cp != 0 || g_t % cp != 0))
    c.error(hp.ulysses_degree > 0 ? "hyperparallel.ulysses_degree" : "hyperparallel",
            "Pure Ulysses requires num_heads % cp_size == 0 for Q, K and V (" + heads + ", cp_size " +
                std::to_string(cp) + ")",
            {best > 1 ? "the largest ulysses_degree that divides the heads is " + std::to_string(best) : std::string(
                            "no ulysses_degree > 1 divides the heads"),
             beyond});
  if (mode == HpMode::Hybrid && h_t > 0 && (h_t % u != 0 || g_t % u != 0))
    c.error("hyperparallel.ulysses_degree",
            "num_heads (" + std::to_string(h_t % u != 0 ? h_t : g_t) + ") must be divisible by ulysses_degree (" +
                std::to_string(u) + ").",
            {heads + "; the Ulysses all-to-all splits the heads of Q, K and V",
             best > 1 ? "the largest ulysses_degree that divides the heads and cp is " + std::to_string(best)
                      : std::string("use ulysses_degree: 1 (pure Colossal AI)")});
  if (hp.load_balance && !dsa && u != 1)
    c.error("hyperparallel.load_balance", "load_balance=True requires ulysses_degree=1 (Pure Colossal AI mode).",
            {"set hyperparallel.ulysses_degree: 1, or remove load_balance"});
  if (hp.load_balance && hp.style == HpStyle::AsyncContextParallel && u == 1)
    c.warning("hyperparallel.load_balance",
              "AsyncContextParallel with load_balance falls back to the synchronous Colossal style (HyperParallel's rule)");
  if (!hp.mesh_dim_names.empty()) {
    const auto& n = hp.mesh_dim_names;
    if (n.size() != 2)
      c.error("hyperparallel.mesh_dim_names",
              "a hybrid CP mesh has two dimensions, got " + std::to_string(n.size()) + " name(s)",
              {"e.g. mesh_dim_names: [co, ds] (Colossal dimension first)"});
    else if (n[0] == n[1])
      c.error("hyperparallel.mesh_dim_names", "the two mesh dimension names are the same ('" + n[0] + "')",
              {"e.g. mesh_dim_names: [co, ds]"});
    else if (mode != HpMode::Hybrid)
      c.warning("hyperparallel.mesh_dim_names",
                std::string("mesh_dim_names names a 2-D hybrid mesh; the ") + to_string(mode) +
                    " mode flattens the CP mesh to one dimension and ignores them");
    else if ((n[0] == "ds" || n[0] == "ulysses") && (n[1] == "co" || n[1] == "colossal"))
      c.warning("hyperparallel.mesh_dim_names",
                "HyperParallel uses the FIRST mesh dimension as the Colossal (all-gather) sub-group and the second as "
                "the Ulysses one, whatever their names; [" + n[0] + ", " + n[1] + "] looks swapped",
                {"write mesh_dim_names: [" + n[1] + ", " + n[0] + "]"});
  }
  // Sequence: each CP rank takes a contiguous slice; load balance halves it again.
  const std::int64_t S = s.model.seq_length;
  if (cp > 1 && S % cp != 0)
    c.error("model.seq_length", "seq_len % cp_size == 0 is required: each CP rank takes a contiguous slice (seq_length " +
                                    std::to_string(S) + ", cp_size " + std::to_string(cp) + ")",
            {"nearest valid: " + std::to_string(S / cp * cp) + " or " + std::to_string((S / cp + 1) * cp)});
  else if (cp > 1 && hp.load_balance && S % (2LL * cp) != 0)
    c.error("model.seq_length", "load_balance splits each rank's local Q in halves: seq_length must be a multiple of 2 * cp_size (" +
                                    std::to_string(2LL * cp) + ")",
            {"nearest valid: " + std::to_string(S / (2 * cp) * 2 * cp) + " or " + std::to_string((S / (2 * cp) + 1) * 2 * cp)});
  if (dsa && s.model.dsa.enabled && s.model.dsa.index_topk > S)
    c.error("model.dsa.index_topk", "index_topk (" + std::to_string(s.model.dsa.index_topk) +
                                        ") is larger than seq_length (" + std::to_string(S) + ")",
            {"each query attends to at most seq_length keys; DeepSeek-V3.2 uses 2048"});
}

}  // namespace

int largest_ulysses_degree(int cp, int h_t, int g_t) {
  for (int u = cp; u > 1; --u)
    if (cp % u == 0 && h_t > 0 && g_t > 0 && h_t % u == 0 && g_t % u == 0) return u;
  return 1;
}

Diagnostics validate_hyperparallel(const Scenario& s) {
  HpChecker c(s);
  if (!s.hyperparallel_cp()) {
    if (s.model.dsa.enabled)
      c.warning("model.dsa", "model.dsa is used only with a hyperparallel: section (style: DSA) and is ignored");
    return c.take();
  }
  check_replaced_fields(s, c);
  check_modes(s, c);
  return c.take();
}

}  // namespace hcpsim
