#pragma once
// The error band as the JSON reports write it (`simulate`'s step.error_band, `plan`'s best[].error_band):
// the class, its holdout count and fractions, and the ranges of the predicted step time and tokens/s
// per GPU; null without a band.
#include <nlohmann/json.hpp>

#include <optional>

#include "engine/error_band/error_band.h"

namespace hcpsim::accuracy {

nlohmann::json error_band_json(const std::optional<ErrorBand>& band, double predicted_time_s,
                               double predicted_tokens_per_s_per_gpu);

}  // namespace hcpsim::accuracy
