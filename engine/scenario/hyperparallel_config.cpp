#include "engine/scenario/hyperparallel_config.h"

namespace hcpsim {

const char* to_string(HpStyle s) {
  switch (s) {
    case HpStyle::ContextParallel: return "ContextParallel";
    case HpStyle::AsyncContextParallel: return "AsyncContextParallel";
    case HpStyle::DSA: return "DSA";
    case HpStyle::AsyncDSA: return "AsyncDSA";
  }
  return "?";
}

const char* to_string(HpLayout l) { return l == HpLayout::BSND ? "BSND" : "TND"; }

const char* to_string(HpMode m) {
  switch (m) {
    case HpMode::Ulysses: return "ulysses";
    case HpMode::Colossal: return "colossal";
    case HpMode::Hybrid: return "hybrid";
  }
  return "?";
}

int HyperParallelConfig::ulysses(int cp) const {
  if (dsa()) return 1;   // DSA CP is Colossal only
  return ulysses_degree > 0 ? ulysses_degree : cp;
}

HpMode HyperParallelConfig::mode(int cp) const {
  const int u = ulysses(cp);
  if (u <= 1) return HpMode::Colossal;
  if (u >= cp) return HpMode::Ulysses;
  return HpMode::Hybrid;
}

}  // namespace hcpsim
