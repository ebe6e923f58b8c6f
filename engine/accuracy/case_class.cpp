#include "engine/accuracy/case_class.h"

#include <stdexcept>

#include "engine/scenario/scenario.h"

namespace hcpsim::accuracy {

std::string level_of_metric(const std::string& m) {
  if (m == "tflops" || m == "time_ms") return "kernel";
  if (m == "bus_bandwidth_GBps" || m == "alg_bandwidth_GBps" || m == "time_us") return "collective";
  if (m.rfind("attention_", 0) == 0) return "attention";
  if (m.rfind("layer_", 0) == 0 || m == "step_s") return "layer";
  if (m == "prefill_ms") return "prefill";
  if (m == "train_step_s" || m == "tokens_per_s_per_gpu") return "whole_step";
  throw std::logic_error("level_of_metric: unknown metric " + m);
}

std::string case_class_of(const AccuracyCase& c, const PredictOptions& options) {
  const std::string level = level_of_metric(c.metric);
  switch (c.kind) {
    case CaseKind::Collective: return level;
    case CaseKind::Kernel: return level + "/bf16";
    case CaseKind::Scenario: return level + "/" + precision_of(case_scenario(c, options));
  }
  return level;
}

}  // namespace hcpsim::accuracy
