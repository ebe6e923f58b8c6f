#include "engine/app/point_eval.h"

#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/app/simulate.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

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

// What the layer graph of a scenario's model-parallel slice depends on (the rest of the scenario is
// the planner's base, the same for every candidate).
std::string layer_cache_key(const Scenario& s, const std::string& backend) {
  const Scenario t = step::model_parallel_slice(s);
  // A folded run simulates one unit with pp 1 (engine/fold/fold_plan.h), whose ranks do not depend on
  // where pp stands in dist.order: tp-cp-ep-dp-pp and tp-cp-ep-pp-dp share one run.
  std::string order = t.dist.order;
  if (t.simulation.fold == FoldMode::Auto && t.cluster.faults.empty())
    for (const char* pp : {"-pp", "pp-"})
      if (const auto at = order.find(pp); at != std::string::npos) {
        order.erase(at, 3);
        break;
      }
  std::string k = backend + "|" + std::to_string(t.tp()) + "|" + std::to_string(t.cp()) + "|" +
                  std::to_string(t.cluster.nodes) + "x" + std::to_string(t.cluster.gpus_per_node) + "|mbs" +
                  std::to_string(t.train.micro_batch_size) + "|sp" + std::to_string(t.model.sequence_parallel) + "|" +
                  to_string(t.train.mode) + "|" + t.model.fp8 + "|" + std::to_string(t.model.fp8_dot_product_attention) +
                  "|" + order + "|" + std::to_string(t.model.seq_length) + "|";
  for (CpCommType c : t.model.cp_comm_type) k += std::string(to_string(c)) + ",";
  for (int x : t.model.hierarchical_context_parallel_sizes) k += std::to_string(x) + ",";
  // HyperParallel's section replaces cp_comm_type: its mode, style and DSA sizes change the layer.
  if (t.hyperparallel_cp()) {
    const auto& h = t.hyperparallel;
    k += std::string("|hp:") + to_string(h.style) + ",u" + std::to_string(h.ulysses(t.cp())) + (h.load_balance ? ",lb" : "") +
         "," + to_string(h.layout);
    if (h.dsa())
      k += ",dsa" + std::to_string(t.model.dsa.index_topk) + "x" + std::to_string(t.model.dsa.index_n_heads) + "x" +
           std::to_string(t.model.dsa.index_head_dim);
  }
  return k;
}

PointMetrics predict_scenario(const Scenario& s, const std::string& backend,
                              const BackendRegistry& registry, LayerCache* layer_cache) {
  const std::string name = backend.empty() ? s.simulation.backend : backend;
  Report r;
  StepReport step;
  const std::string key = layer_cache_key(s, name);
  if (layer_cache != nullptr && layer_cache->count(key) > 0) {
    r = layer_cache->at(key);
    step = step::compose_step(s, layer_times_of(r),
                              {.link_sharing = registry.create(name)->capabilities().models_contention});
  } else {
    std::unique_ptr<Backend> b = registry.create(name);   // throws invalid_argument listing names
    step = predict_step(s, *b, &r);   // one TP x CP group's layer graph, then the step
    if (layer_cache != nullptr) (*layer_cache)[key] = r;
  }

  PointMetrics m;
  m.step_s = step.time_s;
  m.tokens_per_s_per_gpu = step.tokens_per_s_per_gpu;
  m.mfu = step.mfu;
  m.mfu_causal = step.mfu_causal;
  m.pipeline_bubble_fraction = step.pipeline_bubble_fraction;
  if (step.mode == "prefill") m.ttft_s = step.ttft_s;
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
  if (s.hyperparallel_cp())   // HyperParallel's mode replaces cp_comm_type: "hp-hybrid-u8", "hp-colossal-lb", ...
    r.comm_type = std::string("hp-") + to_string(s.hyperparallel.mode(s.cp())) + "-u" +
                  std::to_string(s.hyperparallel.ulysses(s.cp())) + (s.hyperparallel.load_balance ? "-lb" : "");
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
