#include "engine/accuracy/accuracy_case.h"

#include "engine/core/enum_names.h"

namespace hcpsim::accuracy {

namespace {

constexpr auto kCaseKindNames = std::to_array<EnumName<CaseKind>>(
    {{CaseKind::Kernel, "kernel"}, {CaseKind::Collective, "collective"}, {CaseKind::Scenario, "scenario"}});

}  // namespace

const char* to_string(CaseKind k) { return name_of(kCaseKindNames, k); }
const char* to_string(CaseRole r) { return r == CaseRole::Fit ? "fit" : "holdout"; }

const std::vector<std::string>& metrics_of(CaseKind k) {
  static const std::vector<std::string> kernel{"tflops", "time_ms"};
  static const std::vector<std::string> collective{"bus_bandwidth_GBps", "alg_bandwidth_GBps", "time_us"};
  static const std::vector<std::string> scenario{
      "attention_forward_ms", "attention_backward_ms", "attention_fwd_bwd_ms",
      "layer_forward_ms", "layer_backward_ms",
      "attention_forward_tflops_per_gpu", "attention_backward_tflops_per_gpu",
      "prefill_ms", "step_s", "train_step_s", "tokens_per_s_per_gpu"};
  switch (k) {
    case CaseKind::Kernel: return kernel;
    case CaseKind::Collective: return collective;
    case CaseKind::Scenario: return scenario;
  }
  return kernel;
}

bool higher_is_better(const std::string& metric) {
  return metric.find("tflops") != std::string::npos || metric.find("bandwidth") != std::string::npos ||
         metric.find("tokens_per_s") != std::string::npos;
}

SourceLocation AccuracyCase::location_of(const std::string& field) const {
  auto it = locations.find(field);
  return it == locations.end() ? SourceLocation{} : it->second;
}

}  // namespace hcpsim::accuracy
