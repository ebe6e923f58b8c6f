// hcpsim plan: enumerate every parallel layout of the scenario's model on N GPUs, keep the valid ones
// that fit in memory, predict them and print the best K with one sentence each.
#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "engine/app/backend_catalog.h"
#include "engine/planning/planner.h"
#include "engine/planning/point_eval.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/validate.h"

namespace hcpsim::cli {
namespace {

struct PlanArgs {
  std::vector<std::string> positional;
  int gpus = 0;
  int top = 5;
  std::string backend = "analytic";
  std::string metric = "step_s";
  std::string recompute = "none";
  std::string format = "text";
  int jobs = 1;
};

std::string fixed(double v, int prec) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

int run_plan_command(const PlanArgs& a) {
  using namespace planning;
  if (a.format != "text" && a.format != "json") {
    std::cerr << "hcpsim plan: --format " << a.format << ": valid formats are text, json\n";
    return 2;
  }
  LoadOptions lo;
  lo.overrides.assign(a.positional.begin() + 1, a.positional.end());
  Scenario base;
  try {
    base = load_scenario_file(a.positional[0], lo);
  } catch (const ScenarioError& e) {
    std::cerr << format_diagnostics(e.diagnostics(), e.file());
    return 1;
  }
  if (!check_backend_option("plan", a.backend)) return 2;
  const BackendRegistry& registry = app::backend_registry();
  PlanOptions po;
  po.gpus = a.gpus;
  po.top = a.top;
  po.jobs = a.jobs;
  po.metric = a.metric;
  po.memory.recompute = parse_recompute(a.recompute);
  PlanOutcome out;
  try {
    out = plan(base, po, [](const Scenario& s) { return validate(s); },
               [&](const Scenario& s) { return predict_scenario(s, a.backend, registry); });
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcpsim plan: " << e.what() << '\n';
    return 2;
  }
  const int gpus = a.gpus > 0 ? a.gpus : base.world_size();
  const std::size_t predicted = out.enumerated - out.invalid - out.out_of_memory;

  if (a.format == "json") {
    nlohmann::json j;
    j["scenario"] = base.display_name();
    j["configuration"] = base.configuration();
    j["overrides"] = base.overrides;
    j["gpus"] = gpus;
    j["backend"] = a.backend;
    j["metric"] = a.metric;
    j["enumerated"] = out.enumerated;
    j["invalid"] = out.invalid;
    j["out_of_memory"] = out.out_of_memory;
    j["failed"] = out.failed;
    j["notes"] = out.notes;
    j["best"] = nlohmann::json::array();
    for (const auto& e : out.best) {
      nlohmann::json b = to_json(e.result, {"configuration"});
      b["tp"] = e.candidate.tp;
      b["cp"] = e.candidate.cp;
      b["dp"] = e.candidate.dp;
      b["cp_comm_type"] = to_string(e.candidate.comm);
      b["hierarchical_context_parallel_sizes"] = e.candidate.hierarchical;
      b["order"] = e.candidate.order;
      b["explanation"] = e.explanation;
      j["best"].push_back(b);
    }
    std::cout << j.dump(2) << '\n';
  } else {
    std::printf("plan: %s, seq %lld, %d GPUs (%d per node, %.0f GB each), backend %s, ranked by %s\n",
                base.display_name().c_str(), static_cast<long long>(base.model.seq_length), gpus,
                base.cluster.gpus_per_node, base.cluster.gpu.memory_bytes / 1e9, a.backend.c_str(),
                a.metric.c_str());
    std::printf("%zu configurations: %zu invalid, %zu out of memory, %zu predicted (%zu failed)\n\n",
                out.enumerated, out.invalid, out.out_of_memory, predicted, out.failed);
    int rank = 0;
    for (const auto& e : out.best) {
      const PointMetrics& m = e.result.metrics;
      std::printf("%d. %s\n   step %s s | attention fwd %s ms, bwd %s ms | %s TFLOP/s per GPU | exposed comm %s ms | %s GiB per GPU\n   %s\n",
                  ++rank, e.candidate.label().c_str(), fixed(m.step_s, 3).c_str(),
                  fixed(m.attention_forward_s * 1e3, 2).c_str(), fixed(m.attention_backward_s * 1e3, 2).c_str(),
                  fixed(m.attention_tflops_per_gpu, 1).c_str(), fixed(m.exposed_comm_s * 1e3, 2).c_str(),
                  fixed(e.memory.total_bytes / (1024.0 * 1024 * 1024), 1).c_str(), e.explanation.c_str());
    }
    for (const auto& n : out.notes) std::printf("\nnote: %s\n", n.c_str());
    if (!out.invalid_reasons.empty()) {
      std::printf("rejected by validation (first error of each):\n");
      for (const auto& [why, n] : out.invalid_reasons) std::printf("  %3zu x %s\n", n, why.c_str());
    }
  }
  if (out.best.empty()) {
    std::cerr << "hcpsim plan: no configuration is valid and fits in GPU memory; try --recompute "
                 "selective|full, more --gpus, or a larger pipeline_model_parallel_size\n";
    return 1;
  }
  return 0;
}

}  // namespace

void add_plan_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("plan", "Find the best valid parallel layouts (tp, cp, comm type, split) that fit in memory");
  auto args = std::make_shared<PlanArgs>();
  cmd->add_option("FILE", args->positional, "scenario file followed by key.path=value overrides")->required();
  cmd->add_option("--gpus", args->gpus, "number of GPUs (default: the scenario's nodes x gpus_per_node)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--top", args->top, "how many configurations to print (default 5)")->check(CLI::PositiveNumber);
  cmd->add_option("--backend", args->backend, "backend that predicts each configuration (default analytic)");
  cmd->add_option("--metric", args->metric, "ranking metric: step_s (default), attention_s, attention_tflops_per_gpu, ...");
  cmd->add_option("--recompute", args->recompute, "activation recomputation assumed for memory: none | selective | full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  cmd->add_option("--format", args->format, "text | json");
  cmd->add_option("-j,--jobs", args->jobs, "predict in this many worker processes (default 1)")->check(CLI::PositiveNumber);
  cmd->footer(
      "Examples:\n"
      "  hcpsim plan scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16 --top 5\n"
      "  hcpsim plan scenarios/llama3-70b-128k-dgx-h100-hcp.yaml model.pipeline_model_parallel_size=4 \\\n"
      "      --recompute full --metric attention_s\n"
      "Only configurations that validate and fit in GPU memory are proposed. Exit 1 when none does.");
  cmd->callback([args, &ctx]() { ctx.exit_code = run_plan_command(*args); });
}

}  // namespace hcpsim::cli
