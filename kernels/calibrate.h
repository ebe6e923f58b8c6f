#pragma once
// The measurements behind `hcpsim calibrate`: attention forward/backward over shapes, device
// copies, and (with >= 2 GPUs in the machine and NCCL found) NCCL send/recv, all-to-all and
// all-gather over message sizes, plus the calibration YAML of engine/cost/calibration.h
// (docs/metrics.md) built from them. Returns data; printing is the caller's (cli/calibrate_print.h).
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::kernels {

struct CalibrateRequest {
  const Scenario* scenario = nullptr;   // optional, loaded and valid: nominal peak/link bandwidth + its attention shapes
  bool quick = false;                   // fewer shapes and sizes
  // Held out: the standard grid only, without the scenario's attention shapes and without any grid
  // point at the scenario's (head_dim, mask, q_len x kv_len): a prediction of the scenario from this
  // calibration is not fitted to the scenario's own shapes. Needs a scenario.
  bool held_out_grid = false;
  int iterations = 5;
};

struct AttentionTiming {
  Pass pass = Pass::Forward;
  bool causal = false;
  int head_dim = 0, q_len = 0, kv_len = 0, heads = 0, kv_heads = 0;
  double seconds = 0, flops = 0;
  double efficiency = 0;      // FLOPs / (seconds - kernel overhead) / nominal bf16 peak
  bool from_scenario = false; // a shape of the scenario's graph
  bool in_calibration = true; // false: a grid point the scenario's own shape of that size replaces
};

struct LinkTiming {
  std::string op;             // send_recv, all_to_all, all_gather
  double bytes = 0, seconds = 0;
  double sent_Bps = 0;        // bytes a rank sends / seconds
  double efficiency = 0;      // sent_Bps / nominal intra-node bandwidth
};

struct CalibrationResult {
  std::string devices;        // describe_cuda_devices()
  std::string software;       // CUDA runtime, driver, NCCL (or "NCCL not found ...")
  double nominal_peak_flops = 0, nominal_link_Bps = 0, nominal_hbm_Bps = 0;
  bool nominal_from_scenario = false;
  bool held_out = false;
  int held_out_grid_points = 0;   // grid points left out because the scenario has a shape of that size
  std::vector<AttentionTiming> attention;
  double kernel_overhead_s = 0;
  double copy_Bps = 0;        // 512 MiB device copy, read + write
  int gpus = 0;
  std::string links_note;     // why links were not measured ("" when they were)
  std::vector<LinkTiming> links;
  std::string yaml;           // the calibration file, already read back by load_calibration_string
};

// Throws NoCudaDevice when there is no usable GPU, std::invalid_argument for a request it cannot
// serve (held_out_grid without a scenario), std::runtime_error for CUDA errors. NCCL is needed only
// for the links: without it (or with one GPU) the one-GPU tables are measured and links_note says why.
struct NoCudaDevice : std::runtime_error {
  using std::runtime_error::runtime_error;
};
CalibrationResult measure_calibration(const CalibrateRequest& r);

}  // namespace hcpsim::kernels
