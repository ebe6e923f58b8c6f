// predict_case: backend by name, the kind's scenario and graph, then the metric from the run.
#include "engine/accuracy/case_prediction.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <stdexcept>

#include "engine/accuracy/case_loader.h"
#include "engine/app/simulate.h"
#include "engine/cost/cost_model.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::accuracy {

namespace {

// Keeps only the span of the events (a one-op graph needs no trace).
struct SpanSink : TraceSink {
  double first_start_s = std::numeric_limits<double>::infinity();
  double last_end_s = -std::numeric_limits<double>::infinity();
  void record(const TraceEvent& e) override { note(e.start_s, e.end_s); }
  void record_task(const TaskGraph&, const Task&, double start_s, double end_s) override { note(start_s, end_s); }
  void note(double start_s, double end_s) {
    first_start_s = std::min(first_start_s, start_s);
    last_end_s = std::max(last_end_s, end_s);
  }
};

std::unique_ptr<Backend> backend_for(const AccuracyCase& c, const BackendRegistry& backends) {
  if (!backends.has(c.backend)) {
    std::string names;
    for (const auto& n : backends.names()) names += (names.empty() ? "" : ", ") + n;
    throw_case_error(c, "backend", "backend '" + c.backend + "' is not in this build; available: " + names,
                     {c.backend == "simgrid" ? "build with SimGrid (the default when it is installed), or remove backend:"
                                             : "remove backend: to use analytic"});
  }
  auto b = backends.create(c.backend);
  if (!b->capabilities().predicts_time)
    throw_case_error(c, "backend", "backend '" + c.backend + "' does not predict time", {"use analytic or simgrid"});
  return b;
}

double scenario_metric(const AccuracyCase& c, const Report& r, const Scenario& s) {
  const std::string& m = c.metric;
  auto need = [&](bool ok, const char* pass) {
    if (!ok)
      throw_case_error(c, "metric", "metric " + m + " needs the " + pass + " pass, which the scenario does not simulate",
                       {std::string("add the override simulation.passes: [") + pass + "] (or both passes)"});
  };
  auto need_layer = [&]() {
    if (!r.whole_layer)
      throw_case_error(c, "metric", "metric " + m + " needs whole-layer timing, and the scenario has no model.ffn_hidden_size",
                       {"set model.ffn_hidden_size, or use an attention_* metric"});
  };
  const bool fwd = m.find("forward") != std::string::npos || m == "attention_fwd_bwd_ms" || m == "prefill_ms";
  const bool bwd = m.find("backward") != std::string::npos || m == "attention_fwd_bwd_ms";
  need(!fwd || r.has_forward, "forward");
  need(!bwd || r.has_backward, "backward");
  if (m.rfind("layer_", 0) == 0 || m == "prefill_ms") need_layer();
  if (m == "attention_forward_ms") return r.attention_forward_s * 1e3;
  if (m == "attention_backward_ms") return r.attention_backward_s * 1e3;
  if (m == "attention_fwd_bwd_ms") return (r.attention_forward_s + r.attention_backward_s) * 1e3;
  if (m == "layer_forward_ms") return r.layer_forward_s * 1e3;
  if (m == "layer_backward_ms") return r.layer_backward_s * 1e3;
  if (m == "attention_forward_tflops_per_gpu") return r.attention_forward_tflops_per_gpu;
  if (m == "attention_backward_tflops_per_gpu") return r.attention_backward_tflops_per_gpu;
  // Pipeline stages run one after another in a prefill: the whole model's forward.
  if (m == "prefill_ms") return r.layer_forward_s * s.model.num_layers * 1e3;
  if (m == "step_s") return r.step_s;
  // The whole training step (compose_step): the layers with recomputation, embedding, output layer
  // and loss, pipeline, DP gradient reduction and the optimizer.
  // tokens_per_s_per_gpu: the global batch's tokens over that step time and the job's GPUs.
  if (m == "train_step_s" || m == "tokens_per_s_per_gpu") {
    if (s.train.mode != TrainMode::Train)
      throw_case_error(c, "metric", "metric " + m + " needs train.mode: train", {"use prefill_ms for a prefill"});
    if (!r.step)
      throw_case_error(c, "metric", "metric " + m + " needs the composed training step, which this scenario does not have",
                       {"global_batch_size must be a multiple of micro_batch_size x dp, and num_layers of pp x vpp"});
    return m == "train_step_s" ? r.step->time_s : r.step->tokens_per_s_per_gpu;
  }
  throw std::logic_error("scenario case " + c.name + ": unhandled metric " + m);
}

}  // namespace

double run_span_s(const TaskGraph& g, const Scenario& s, Backend& backend) {
  const RankLayout layout = RankLayout::from_scenario(s);
  const CostModel cost(s);
  RunContext ctx{s, layout, cost, {}};
  SpanSink sink;
  backend.run(g, ctx, sink);
  return sink.last_end_s > sink.first_start_s ? sink.last_end_s - sink.first_start_s : 0.0;
}

double predict_case(const AccuracyCase& c, const BackendRegistry& backends, const PredictOptions& options) {
  auto backend = backend_for(c, backends);
  try {
    switch (c.kind) {
      case CaseKind::Kernel: {
        const Scenario s = kernel_scenario(c, options);
        const TaskGraph g = kernel_graph(c, s);
        const double t = run_span_s(g, s, *backend);
        if (t <= 0) throw_case_error(c, "kernel", "the predicted kernel time is zero");
        return c.metric == "time_ms" ? t * 1e3 : kernel_reported_flops(c, g) / t / 1e12;
      }
      case CaseKind::Collective: {
        const Scenario s = collective_scenario(c, options);
        const TaskGraph g = collective_graph(c, s);
        const double t = run_span_s(g, s, *backend);
        if (t <= 0) throw_case_error(c, "collective", "the predicted collective time is zero");
        if (c.metric == "time_us") return t * 1e6;
        const double alg_GBps = c.collective.bytes / t / 1e9;
        return c.metric == "alg_bandwidth_GBps" ? alg_GBps
                                                : alg_GBps * bus_bandwidth_factor(c.collective.op, c.collective.ranks);
      }
      case CaseKind::Scenario: {
        const Scenario s = case_scenario(c, options);
        SimulateOptions opt;
        opt.keep_events = false;
        const SimulationResult r = simulate_scenario(s, *backend, opt);
        return scenario_metric(c, r.report, s);
      }
    }
  } catch (const CaseError&) {
    throw;
  } catch (const std::exception& e) {   // builders and backends: std::invalid_argument / runtime_error
    throw_case_error(c, "kind", std::string("prediction failed: ") + e.what());
  }
  throw std::logic_error("unknown case kind");
}

Scenario load_assembled_scenario(const AccuracyCase& c, const YAML::Node& root, const PredictOptions& options,
                                 const std::string& load_field, const std::string& valid_field,
                                 const std::string& what) {
  LoadOptions opt;
  opt.overrides = options.overrides;
  Scenario s;
  try {
    s = load_scenario_node(root, opt, c.file, std::filesystem::path(c.file).parent_path().string());
  } catch (const ScenarioError& e) {
    throw_case_error(c, load_field, what + " does not load (below)", {}, {{e.file(), e.diagnostics()}});
  }
  const Diagnostics d = validate(s);
  if (d.has_errors()) throw_case_error(c, valid_field, what + " is not valid (below)", {}, {{c.file, d}});
  return s;
}

}  // namespace hcpsim::accuracy
