#pragma once
// Calibration: measured efficiency tables that replace the cost model's defaults for the shapes
// they cover (the YAML format: docs/metrics.md "Calibration file format").
// Written by `hcpsim calibrate` on real hardware, or by hand.
#include <optional>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim {

// One measured attention kernel: fraction of bf16 peak reached at this shape.
struct AttentionCalibrationPoint {
  Pass pass = Pass::Forward;
  int head_dim = 128;
  bool causal = true;            // true: diagonal/causal/bottom_right kernels; false: unmasked
  double q_len = 0;              // tokens
  double kv_len = 0;             // tokens
  double efficiency = 0;         // fraction of GpuSpec::bf16_flops, (0, 1]
};

// One measured GEMM: fraction of bf16 peak reached at this size.
struct GemmCalibrationPoint {
  double flops = 0;              // FLOPs of the GEMM
  double efficiency = 0;         // fraction of peak, (0, 1]
};

// One measured message: fraction of the nominal link bandwidth reached.
struct LinkCalibrationPoint {
  std::string op = "send_recv";  // send_recv | all_to_all | all_gather | reduce_scatter | all_reduce
  double bytes = 0;              // message size, bytes
  double efficiency = 0;         // achieved / nominal bandwidth, (0, 1]
};

struct Calibration {
  std::string hardware;          // free text: what it was measured on
  std::string software;          // free text: library versions
  std::optional<double> kernel_overhead_s;               // fixed cost per compute kernel, seconds
  std::optional<double> compute_slowdown_during_comm;    // recorded; the model uses comm_hbm_interference
  // Cost-model term parameters (docs/metrics.md section 9); each replaces the scenario's value.
  std::optional<double> comm_hbm_interference;           // comm_compute_interference: HBM weight, [0, 10]
  std::optional<double> nccl_launch_s;                   // host_overheads: per NCCL call, seconds
  std::optional<double> ring_step_sync_s;                // host_overheads: per ring step, seconds
  std::vector<AttentionCalibrationPoint> attention;
  std::vector<GemmCalibrationPoint> gemm;
  std::vector<LinkCalibrationPoint> intra_node;
  std::vector<LinkCalibrationPoint> inter_node;
};

// Reads a calibration YAML file. Throws std::runtime_error naming the file, line and field.
Calibration load_calibration_file(const std::string& path);
// Same from YAML text; `name_for_messages` stands for the file in errors.
Calibration load_calibration_string(const std::string& yaml, const std::string& name_for_messages);
// Writes `c` in the format load_calibration_* reads (used by `hcpsim calibrate`).
std::string calibration_to_yaml(const Calibration& c);

// Piecewise-linear interpolation of (x, y) points in log(x), clamped at both ends.
// Points need not be sorted; equal x are averaged. Precondition: !points.empty(), x > 0.
double interpolate_log_x(std::vector<std::pair<double, double>> points, double x);

}  // namespace hcpsim
