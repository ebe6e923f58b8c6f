#include "engine/scenario/hyperparallel_config.h"

#include <array>

#include "engine/core/enum_names.h"
#include "engine/scenario/convert.h"

namespace hcpsim {
namespace {

constexpr auto kStyleNames = std::to_array<EnumName<HpStyle>>({{HpStyle::ContextParallel, "ContextParallel"},
                                                               {HpStyle::AsyncContextParallel, "AsyncContextParallel"},
                                                               {HpStyle::DSA, "DSA"},
                                                               {HpStyle::AsyncDSA, "AsyncDSA"}});
constexpr auto kModeNames = std::to_array<EnumName<HpMode>>(
    {{HpMode::Ulysses, "ulysses"}, {HpMode::Colossal, "colossal"}, {HpMode::Hybrid, "hybrid"}});

}  // namespace

const char* to_string(HpStyle s) { return name_of(kStyleNames, s); }
const char* to_string(HpLayout l) { return l == HpLayout::BSND ? "BSND" : "TND"; }
const char* to_string(HpMode m) { return name_of(kModeNames, m); }

std::optional<HpStyle> detail::hp_style_named(std::string_view name) { return find_value(kStyleNames, name); }

std::vector<std::string> detail::hp_style_names() {
  std::vector<std::string> out;
  for (const auto& entry : kStyleNames) out.emplace_back(entry.name);
  return out;
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
