#pragma once
// The `hyperparallel:` section (MindSpore HyperParallel's context-parallel styles) and `model.dsa`
// (DeepSeek Sparse Attention's indexer sizes). docs/scenario.md "HyperParallel" and
// docs/hyperparallel.md describe both; engine/schedule/hp_*.cpp build the schedules.
#include <string>
#include <vector>

namespace hcpsim {

// HyperParallel's ParallelStyle classes: ContextParallel (synchronous hooks), AsyncContextParallel
// (the collectives start right after the Q/K/V projections), DSA (DeepSeek Sparse Attention's
// indexer / sparse-attention / indexer-loss boundaries, Colossal mode only), AsyncDSA (the
// AsyncDSA*ContextParallel classes: the key-side all-gathers start from the handoff modules that
// produce K, V and the indexer key, and are waited for at the boundary that consumes them).
enum class HpStyle { ContextParallel, AsyncContextParallel, DSA, AsyncDSA };
// Input layout of the DSA styles: BSND (batch, sequence, heads, dim) or TND (packed tokens).
enum class HpLayout { BSND, TND };
// The mode ulysses_degree selects: unset or = cp -> pure Ulysses, 1 -> pure Colossal, in between -> hybrid.
enum class HpMode { Ulysses, Colossal, Hybrid };

const char* to_string(HpStyle s);    // "ContextParallel", "AsyncContextParallel", "DSA", "AsyncDSA"
const char* to_string(HpLayout l);   // "BSND", "TND"
const char* to_string(HpMode m);     // "ulysses", "colossal", "hybrid"

struct HyperParallelConfig {
  bool enabled = false;               // the section is present: HyperParallel replaces cp_comm_type
  HpStyle style = HpStyle::ContextParallel;
  int ulysses_degree = 0;             // 0 = not given (HyperParallel's None: pure Ulysses over all of cp)
  bool load_balance = false;          // head-tail Q exchange (Colossal only)
  HpLayout layout = HpLayout::BSND;
  bool layout_given = false;
  std::vector<std::string> mesh_dim_names;   // 2-D CP mesh names, Colossal dimension first ("co", "ds")

  // The Ulysses sub-group size u for a CP size: ulysses_degree, or cp when not given (DSA: 1).
  int ulysses(int cp) const;
  HpMode mode(int cp) const;
  // One of the DSA styles (DSA or AsyncDSA).
  bool dsa() const { return style == HpStyle::DSA || style == HpStyle::AsyncDSA; }
  // The collectives start from the producing projections: AsyncContextParallel (falls back to the
  // synchronous style with load_balance, HyperParallel's rule) or AsyncDSA (its handoff modules).
  bool async_effective() const {
    return (style == HpStyle::AsyncContextParallel && !load_balance) || style == HpStyle::AsyncDSA;
  }
};

// DeepSeek-V3.2's indexer configuration (config names): top-k keys per query, indexer heads and head dim.
struct DsaConfig {
  bool enabled = false;
  int index_topk = 0;
  int index_n_heads = 0;
  int index_head_dim = 0;
};

}  // namespace hcpsim
