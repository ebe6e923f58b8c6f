#pragma once
// Predicting a case's metric through hcpsim's own pipeline: every kind becomes a Scenario and a
// TaskGraph that a registered backend runs, so the cost and network models are exercised exactly as
// in `hcpsim simulate` (no side formula):
//   kernel      one attention task of the case's shape on a one-GPU cluster of the GPU preset
//               (the engine's cp=1 builder, re-shaped when seq_kv != seq_q)
//   collective  one CommOp over the first `ranks` GPUs of the case's cluster
//   scenario    the scenario file or inline mapping + overrides, validated, simulate_scenario()
#include <string>
#include <vector>

#include "engine/accuracy/accuracy_case.h"
#include "engine/backend/backend.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::accuracy {

// What every case's scenario gets on top of its own setup: `key.path=value` overrides, applied after
// the case's own `overrides` (so they win), e.g. "cluster.efficiency.attention_forward=0.6" to see
// what a model parameter does to the whole suite.
struct PredictOptions {
  std::vector<std::string> overrides;
};

// Loads and validates the one-node scenario a kernel or collective case assembles from its own fields
// (`root`, nodes carrying the case file's marks), with `options.overrides`. A load error points at
// the case's `load_field`, a validation error at `valid_field`; `what` names the scenario in them.
Scenario load_assembled_scenario(const AccuracyCase& c, const YAML::Node& root, const PredictOptions& options,
                                 const std::string& load_field, const std::string& valid_field,
                                 const std::string& what);

// The predicted value of c.metric, in the metric's unit. The backend is c.backend from `backends`.
// Throws CaseError (case_loader.h) naming the case file, the field and what went wrong; a scenario
// that does not load or validate also lists the scenario's own diagnostics.
double predict_case(const AccuracyCase& c, const BackendRegistry& backends, const PredictOptions& options = {});

// Building blocks, exposed for tests and for tools that want the graph of a case.

// kind: kernel. A one-GPU scenario (cp=1, tp=1, one layer, the case's passes only) and its graph:
// one attention task, or a forward and then a backward task for pass: forward_backward.
Scenario kernel_scenario(const AccuracyCase& c, const PredictOptions& options = {});
TaskGraph kernel_graph(const AccuracyCase& c, const Scenario& s);
// FLOPs of the kernel(s) under the case's flops_convention (fa: the FlashAttention papers' count;
// exact: the tasks' own FLOPs).
double kernel_reported_flops(const AccuracyCase& c, const TaskGraph& g);

// kind: collective. The case's cluster with a trivial model (tp=cp=pp=1) and the graph of one op
// over global ranks 0..ranks-1.
Scenario collective_scenario(const AccuracyCase& c, const PredictOptions& options = {});
TaskGraph collective_graph(const AccuracyCase& c, const Scenario& s);
// nccl-tests' bus-bandwidth factor of the op over n ranks (alg -> bus).
double bus_bandwidth_factor(TaskKind op, int n);

// kind: scenario. The scenario with the case's overrides, validated (warnings allowed).
Scenario case_scenario(const AccuracyCase& c, const PredictOptions& options = {});

// Runs `g` on `backend` and returns the span of its events (last end - first start), seconds.
double run_span_s(const TaskGraph& g, const Scenario& s, Backend& backend);

}  // namespace hcpsim::accuracy
