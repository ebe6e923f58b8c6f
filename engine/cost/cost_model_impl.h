#pragma once
// The private state of CostModel, shared by its two source files: cost_model.cpp (compute, the
// constructor) and cost_model_links.cpp (links and communication).
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "engine/cost/calibration.h"
#include "engine/cost/cost_model.h"
#include "engine/cost/gemm_efficiency.h"
#include "engine/cost/nccl_curves.h"
#include "engine/cost/nccl_p2p.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct CostModel::Impl {
  Scenario scenario;
  Calibration calibration;
  std::vector<double> slowdown;   // per rank
  // Fixed per model, read on every send/recv by p2p_efficiency and p2p_comm (set in the constructor).
  NcclArch arch = NcclArch::Hopper;
  double nvlink_family = 1.0;            // nvlink_family_ratio(gpu name)
  int nvlinks = 1;                       // nvlinks_per_gpu(arch, intra-node bandwidth)
  bool send_recv_measured_intra = false; // the calibration file has send_recv points on NVLink
  bool send_recv_measured_inter = false; // ... on the network
  // Plateaus the user set (scenario line or override): a table or calibration curve refines their
  // shape dependence, never their level (docs/metrics.md "Where each efficiency comes from").
  bool stated_attention_forward = false, stated_attention_backward = false, stated_gemm = false;
  bool stated_intra_node_link = false, stated_inter_node_link = false;
  // `gemm_shapes`: the published GEMM fits of the GPU (nullopt: none published, or the term off).
  std::optional<GemmKernelFit> gemm_bf16, gemm_fp8;
};


namespace cost_detail {

// A curve's plateau: its value past its largest point (interpolate_log_x clamps there).
inline double curve_plateau(std::vector<std::pair<double, double>> pts) {
  return interpolate_log_x(std::move(pts), std::numeric_limits<double>::max());
}

}  // namespace cost_detail
}  // namespace hcpsim
