#pragma once
// The one compute/communication interference a single GPU can show (`hcpsim calibrate
// --interference`): attention timed alone, then while a bandwidth-bound copy holding a few SMs runs
// on a second stream (bandwidth_copy.h, the stand-in for an NCCL kernel's channels), against what
// the cost model's `comm_compute_interference` predicts for that load (docs/metrics.md section 9.1).
// Returns data; printing is the caller's.
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim::kernels {

struct InterferenceRequest {
  const Scenario* scenario = nullptr;   // optional: the GPU preset (SMs, HBM) and the HBM weight
  int iterations = 5;
  std::vector<int> copy_ctas{8, 16, 32};   // NCCL's send/recv channels on NVLink: up to 8
};

struct InterferencePoint {
  std::string pass;              // forward, backward
  int copy_ctas = 0;
  double copy_alone_Bps = 0;     // read + write bytes/s of the copy running alone
  double attention_flops = 0;     // docs/schedules.md "FLOPs"
  double attention_alone_s = 0;
  double attention_beside_s = 0; // while the copy runs for the whole of it
  double measured_slowdown = 0;  // beside / alone
  double model_load = 0;         // comm_compute_load_of(ctas, SMs, copy_alone_Bps, HBM, weight)
  double model_slowdown = 0;     // 1 / max(min share, 1 - load)
};

struct InterferenceResult {
  std::string attention;         // the attention shape timed, in words
  int sm_count = 0;              // the device's
  double hbm_Bps = 0;            // nominal, from the scenario's GPU preset
  double hbm_weight = 0;         // cluster.efficiency.comm_hbm_interference
  std::vector<InterferencePoint> points;
};

// Throws NoCudaDevice (calibrate.h) without a GPU, std::runtime_error for CUDA errors.
InterferenceResult probe_interference(const InterferenceRequest& r);

}  // namespace hcpsim::kernels
