#pragma once
// The measurements behind `hcpsim calibrate`: measures attention forward/backward over shapes,
// device copies, and (with >= 2 GPUs in the machine) NCCL send/recv, all-to-all and all-gather over
// message sizes; writes the calibration YAML of engine/cost/calibration.h (docs/metrics.md).
#include <iosfwd>
#include <string>

#include "engine/scenario/scenario.h"

namespace hcpsim::kernels {

struct CalibrateRequest {
  const Scenario* scenario = nullptr;     // optional, loaded and valid: nominal peak/link bandwidth + its attention shapes
  std::string out_path;                   // "" = print the YAML to `out`
  bool quick = false;                     // fewer shapes and sizes
  int iterations = 5;
};

// Returns the exit code (0 ok; 1 no GPU, CUDA/NCCL error).
int run_calibration(const CalibrateRequest& r, std::ostream& out, std::ostream& err);

}  // namespace hcpsim::kernels
