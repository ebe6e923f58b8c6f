#include "engine/report/report_guard.h"

#include <string>

#include "engine/core/internal_error.h"

namespace hcpsim {

void check_report_values(const Report& r) {
  constexpr const char* kWhere = "report";
  auto need = [&](const std::string& field, double v) { require_non_negative(kWhere, field, v); };
  need("attention.forward_s", r.attention_forward_s);
  need("attention.backward_s", r.attention_backward_s);
  need("attention.exposed_comm_forward_s", r.exposed_comm_forward_s);
  need("attention.exposed_comm_backward_s", r.exposed_comm_backward_s);
  need("attention.forward_tflops_per_gpu", r.attention_forward_tflops_per_gpu);
  need("attention.backward_tflops_per_gpu", r.attention_backward_tflops_per_gpu);
  need("layer.forward_s", r.layer_forward_s);
  need("layer.backward_s", r.layer_backward_s);
  need("makespan_s", r.makespan_s);
  need("step_s", r.step_s);
  need("overlap_fraction", r.overlap_fraction);
  if (r.overlap_fraction > 1.0 + 1e-9) throw InternalError("report: overlap_fraction = " + std::to_string(r.overlap_fraction) + " (it must be at most 1)");
  need("bytes.intra_node", r.bytes_intra_node);
  need("bytes.inter_node", r.bytes_inter_node);
  need("compute_busy_s", r.compute_busy_s);
  need("comm_busy_s", r.comm_busy_s);
  need("wall_s", r.wall_s);
  need("critical_path.compute_s", r.critical_path_compute_s);
  need("critical_path.comm_s", r.critical_path_comm_s);
  need("critical_path.idle_s", r.critical_path_idle_s);
  if (r.slowest_rank < -1 || r.slowest_rank >= r.world_size)
    throw InternalError("report: slowest_rank = " + std::to_string(r.slowest_rank) + " is not a rank of the world (" +
                        std::to_string(r.world_size) + ")");
  for (const auto& l : r.layers) {
    const std::string p = "layers[" + std::to_string(l.layer) + "].";
    need(p + "attention_forward_s", l.attention_forward_s);
    need(p + "attention_backward_s", l.attention_backward_s);
    need(p + "layer_forward_s", l.layer_forward_s);
    need(p + "layer_backward_s", l.layer_backward_s);
    need(p + "exposed_comm_forward_s", l.exposed_comm_forward_s);
    need(p + "exposed_comm_backward_s", l.exposed_comm_backward_s);
    // -1 means "pass not simulated" and is written as null; any other negative rank is a bug.
    if ((r.has_forward && l.slowest_rank_forward < 0) || l.slowest_rank_forward < -1 ||
        (r.has_backward && l.slowest_rank_backward < 0) || l.slowest_rank_backward < -1)
      throw InternalError("report: " + p + "slowest_rank_forward/backward = " + std::to_string(l.slowest_rank_forward) +
                          "/" + std::to_string(l.slowest_rank_backward) + " for a simulated pass");
  }
  for (const auto& c : r.critical_path) {
    need("critical_path task " + std::to_string(c.task) + " start_s", c.start_s);
    need("critical_path task " + std::to_string(c.task) + " duration", c.end_s - c.start_s);
  }
  if (r.memory) {
    need("memory.peak_bytes_per_gpu", r.memory->peak_bytes_per_gpu);
    need("memory.capacity_bytes_per_gpu", r.memory->capacity_bytes_per_gpu);
    for (const auto& [item, bytes] : r.memory->breakdown_bytes) need("memory.breakdown_bytes." + item, bytes);
  }
}

}  // namespace hcpsim
