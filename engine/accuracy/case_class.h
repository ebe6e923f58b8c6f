#pragma once
// The class of a backtest case: its level (what the metric measures) and the precision of the run,
// "whole_step/fp8". The error band of a prediction (engine/error_band/error_band.h, which also holds
// precision_of and level_of_class) is taken over the holdout cases of its class.
#include <string>

#include "engine/accuracy/accuracy_case.h"
#include "engine/accuracy/case_prediction.h"
#include "engine/error_band/error_band.h"

namespace hcpsim::accuracy {

// kernel (kernel cases), collective (collective cases), attention (attention_*), layer (layer_*,
// step_s: one micro-batch through the simulated layers), prefill (prefill_ms), whole_step
// (train_step_s, tokens_per_s_per_gpu).
std::string level_of_metric(const std::string& metric);

// "level/precision"; collectives carry no precision ("collective"); kernel cases are the BF16/FP16
// attention kernels of their sources ("kernel/bf16"); a scenario case's precision is its scenario's.
std::string case_class_of(const AccuracyCase& c, const PredictOptions& options = {});

}  // namespace hcpsim::accuracy
