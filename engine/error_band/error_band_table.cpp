// Generated: the error band of every case class of validation/published (error_band.h).
// Regenerate after the model or the cases change (test_error_band refuses a stale table):
//   build/cli/hcpsim accuracy validation/published --error-band-table > engine/error_band/error_band_table.cpp
#include "engine/error_band/error_band.h"

namespace hcpsim::accuracy {

const std::vector<ErrorBand>& error_band_table() {
  // {low_fraction, high_fraction, case_class, holdout_cases}
  static const std::vector<ErrorBand> table{
      {0.142180, 0.149957, "attention", 2},
      {0.142180, 0.149957, "attention/bf16", 2},
      {-0.145824, 0.089331, "collective", 10},
      {-0.079300, 0.012424, "kernel", 12},
      {-0.079300, 0.012424, "kernel/bf16", 12},
      {-0.036048, 0.538666, "whole_step", 26},
      {-0.036048, 0.166975, "whole_step/bf16", 6},
      {-0.001800, 0.538666, "whole_step/fp8", 20},
  };
  return table;
}

}  // namespace hcpsim::accuracy
