#include "engine/planning/point_eval.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/report/simulate.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/validate.h"

namespace hcpsim::planning {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string first_error(const Diagnostics& d) {
  for (const Diagnostic& x : d.items()) {
    if (x.severity != Severity::Error) continue;
    std::string s = x.path + ": " + x.message;
    for (const auto& h : x.hints) s += " (hint: " + h + ")";
    return s;
  }
  return "invalid";
}

}  // namespace

PointMetrics predict_scenario(const Scenario& s, const std::string& backend,
                              const BackendRegistry& registry) {
  const std::string name = backend.empty() ? s.simulation.backend : backend;
  std::unique_ptr<Backend> b = registry.create(name);   // throws invalid_argument listing names
  SimulateOptions so;
  so.keep_events = false;
  const Report r = simulate_scenario(s, *b, so).report;

  PointMetrics m;
  m.step_s = r.step_s;
  m.attention_forward_s = r.has_forward ? r.attention_forward_s : kNaN;
  m.attention_backward_s = r.has_backward ? r.attention_backward_s : kNaN;
  m.layer_forward_s = r.whole_layer && r.has_forward ? r.layer_forward_s : kNaN;
  m.layer_backward_s = r.whole_layer && r.has_backward ? r.layer_backward_s : kNaN;
  // Combined forward + backward rate: FLOPs of both passes over their summed time.
  const double tf = r.has_forward ? r.attention_forward_s : 0;
  const double tb = r.has_backward ? r.attention_backward_s : 0;
  if (tf + tb > 0)
    m.attention_tflops_per_gpu = (r.attention_forward_tflops_per_gpu * tf +
                                  r.attention_backward_tflops_per_gpu * tb) / (tf + tb);
  m.exposed_comm_s = r.exposed_comm_forward_s + r.exposed_comm_backward_s;
  return m;
}

PointResult evaluate_point(const std::string& base_path, const SweepPoint& point,
                           const std::string& backend, const BackendRegistry& registry,
                           const MemoryOptions& memory) {
  PointResult r;
  r.labels = point.labels;
  Scenario s;
  Diagnostics warnings;
  try {
    LoadOptions lo;
    lo.overrides = point.overrides;
    s = load_scenario_file(base_path, lo, &warnings);
  } catch (const ScenarioError& e) {
    r.status = PointStatus::Invalid;
    r.message = first_error(e.diagnostics());
    return r;
  }
  const Diagnostics d = validate(s);
  if (d.has_errors()) {
    r.status = PointStatus::Invalid;
    r.message = first_error(d);
    return r;
  }
  r.comm_type = to_string(s.comm_type_for_layer(0));
  if (s.cp() == 1) r.comm_type = "none";
  const MemoryEstimate mem = estimate_memory(s, memory);
  r.fits = mem.fits;
  try {
    r.metrics = predict_scenario(s, backend, registry);
  } catch (const std::exception& e) {
    r.status = PointStatus::Error;
    r.message = e.what();
  }
  r.metrics.memory_per_gpu_bytes = mem.total_bytes;
  if (r.status == PointStatus::Ok) {
    std::string notes;
    if (!mem.fits) notes = "does not fit in GPU memory";
    for (const Diagnostic& w : d.items())
      if (w.severity == Severity::Warning) {
        notes += (notes.empty() ? "warning: " : "; warning: ") + w.message;
        break;
      }
    r.message = notes;
  }
  return r;
}

}  // namespace hcpsim::planning
