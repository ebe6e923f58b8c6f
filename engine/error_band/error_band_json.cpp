#include "engine/error_band/error_band_json.h"

namespace hcpsim::accuracy {

nlohmann::json error_band_json(const std::optional<ErrorBand>& band, double time_s, double tokens_per_s_per_gpu) {
  if (!band) return nullptr;
  const ErrorBand& b = *band;
  return {{"case_class", b.case_class},
          {"holdout_cases", b.holdout_cases},
          {"low_fraction", b.low_fraction},
          {"high_fraction", b.high_fraction},
          {"time_s", {b.time_low(time_s), b.time_high(time_s)}},
          {"tokens_per_s_per_gpu", {b.rate_low(tokens_per_s_per_gpu), b.rate_high(tokens_per_s_per_gpu)}}};
}

}  // namespace hcpsim::accuracy
