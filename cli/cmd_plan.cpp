// hcpsim plan: enumerate every parallel layout of the scenario's model on N GPUs, keep the valid ones
// that fit in memory, predict them and print the best K with one sentence each.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "cli/mpi_job.h"
#include "cli/scenario_args.h"
#include "engine/accuracy/error_band.h"
#include "engine/accuracy/error_band_json.h"
#include "engine/app/backend_catalog.h"
#include "engine/app/help_footer.h"
#include "engine/app/point_eval.h"
#include "engine/planning/planner.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::cli {
namespace {

struct PlanArgs {
  std::vector<std::string> positional;
  int gpus = 0;
  int top = 5;
  std::string backend = "analytic";
  std::string metric;        // "" = tokens_per_s_per_gpu (training) or ttft_s (prefill)
  std::string recompute;     // "" = search none, selective and full
  std::string format = "text";
  int jobs = 1;
  bool hyperparallel = false;   // HyperParallel's CP modes as candidates too
};

std::string fixed(double v, int prec) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

// " (band A .. B)": the range of tokens/s per GPU that the error band of the candidate's class gives
// (engine/accuracy/error_band.h); "" without a band.
std::string band_text(const Scenario& s, double tokens_per_s_per_gpu) {
  const auto b = accuracy::error_band_for(s);
  if (!b) return "";
  return " (band " + fixed(b->rate_low(tokens_per_s_per_gpu), 1) + " .. " + fixed(b->rate_high(tokens_per_s_per_gpu), 1) + ")";
}

// Under mpirun (`job` set) every rank enumerates the same candidates and predicts its share of the
// model-parallel slices; rank 0 gathers, ranks and prints (the others print nothing).
int run_plan_command(const PlanArgs& a, MpiJob* job) {
  using namespace planning;
  const bool root = !job || job->rank() == 0;
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
  po.search.hyperparallel = a.hyperparallel;
  if (!a.recompute.empty()) po.memory.recompute = parse_recompute(a.recompute);
  po.distribution = job;
  if (root) po.progress = [](std::size_t done, std::size_t total, std::size_t predicted) {
    if (predicted == 0)
      std::fprintf(stderr, "plan: %zu of %zu configurations checked\n", done, total);
    else
      std::fprintf(stderr, "plan: %zu fitting configurations predicted\n", predicted);
  };
  PlanOutcome out;
  LayerCache cache;   // one backend run per model-parallel slice
  try {
    // Progress on stderr every few seconds: a plan over many GPUs predicts hundreds of layouts.
    const std::size_t total = enumerate_candidates(base, a.gpus > 0 ? a.gpus : base.world_size(), po.search, po.memory).size();
    const auto start = std::chrono::steady_clock::now();
    auto last = start;
    std::size_t done = 0;
    auto predict = [&](const Scenario& s) {
      ++done;
      const auto now = std::chrono::steady_clock::now();
      if (root && now - last > std::chrono::seconds(5)) {
        last = now;
        const double elapsed = std::chrono::duration<double>(now - start).count();
        std::fprintf(stderr,
                     "plan: predicting configuration %zu (of at most %zu), %.0f s so far, at most about %.0f s "
                     "left at this pace\n",
                     done, total, elapsed, elapsed / static_cast<double>(done) * static_cast<double>(total - done));
      }
      return predict_scenario(s, a.backend, registry, &cache);
    };
    const std::string backend = a.backend;
    out = plan(base, po, [](const Scenario& s) { return validate(s); }, predict,
               [&backend](const Scenario& s) { return layer_cache_key(s, backend); });
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcpsim plan: " << e.what() << '\n';
    return 2;
  }
  if (!root) return 0;
  const int gpus = a.gpus > 0 ? a.gpus : base.world_size();
  if (gpus > base.cluster.gpus_per_node && !registry.create(a.backend)->capabilities().models_contention)
    out.notes.push_back("backend " + a.backend +
                        " does not share links between concurrent flows: the GPUs of a node that send to other "
                        "nodes at once are each timed with their NICs to themselves (NIC sharing is not priced); "
                        "--backend simgrid prices it");
  const std::size_t predicted = out.enumerated - out.invalid - out.out_of_memory;

  if (a.format == "json") {
    nlohmann::json j;
    j["scenario"] = base.display_name();
    j["configuration"] = base.configuration();
    j["overrides"] = base.overrides;
    j["gpus"] = gpus;
    j["backend"] = a.backend;
    j["metric"] = out.metric;
    j["global_batch_size"] = out.global_batch;
    j["out_of_memory_reasons"] = out.out_of_memory_reasons;
    j["invalid_reasons"] = out.invalid_reasons;
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
      b["cp_comm_type"] = e.candidate.hyperparallel ? e.candidate.comm_label() : to_string(e.candidate.comm);
      if (e.candidate.hyperparallel) {
        const HyperParallelConfig& h = e.scenario.hyperparallel;
        b["hyperparallel"] = {{"style", to_string(h.style)},
                              {"mode", to_string(h.mode(e.candidate.cp))},
                              {"ulysses_degree", h.ulysses_degree > 0 ? nlohmann::json(h.ulysses_degree) : nlohmann::json()},
                              {"load_balance", h.load_balance}};
      }
      b["hierarchical_context_parallel_sizes"] = e.candidate.hierarchical;
      b["order"] = e.candidate.order;
      b["pp"] = e.candidate.pp;
      b["vpp"] = e.candidate.vpp;
      b["micro_batch_size"] = e.candidate.mbs;
      b["recompute"] = to_string(e.candidate.recompute);
      b["use_distributed_optimizer"] = e.candidate.distributed_optimizer;
      b["sequence_parallel"] = e.candidate.tp > 1;
      b["error_band"] = accuracy::error_band_json(accuracy::error_band_for(e.scenario), e.result.metrics.step_s,
                                                  e.result.metrics.tokens_per_s_per_gpu);
      b["explanation"] = e.explanation;
      j["best"].push_back(b);
    }
    std::cout << j.dump(2) << '\n';
  } else {
    std::printf("plan: %s (%s), seq %lld, global batch %d sequences, %d GPUs (%d per node, %.1f GiB each), "
                "backend %s, ranked by %s\n",
                base.display_name().c_str(), to_string(base.train.mode), static_cast<long long>(base.model.seq_length),
                out.global_batch, gpus, base.cluster.gpus_per_node,
                base.cluster.gpu.memory_bytes / (1024.0 * 1024 * 1024), a.backend.c_str(), out.metric.c_str());
    std::printf("%zu configurations: %zu invalid, %zu out of memory, %zu predicted (%zu failed)\n\n",
                out.enumerated, out.invalid, out.out_of_memory, predicted, out.failed);
    int rank = 0;
    const bool prefill = base.train.mode == TrainMode::Prefill;
    for (const auto& e : out.best) {
      const PointMetrics& m = e.result.metrics;
      if (prefill)
        std::printf("%d. %s\n   TTFT %s s | prefill of the batch %s s | %s tokens/s per GPU | MFU %s%% | %s GiB per GPU\n   %s\n",
                    ++rank, e.candidate.label().c_str(), fixed(m.ttft_s, 3).c_str(), fixed(m.step_s, 3).c_str(),
                    (fixed(m.tokens_per_s_per_gpu, 1) + band_text(e.scenario, m.tokens_per_s_per_gpu)).c_str(), fixed(100.0 * m.mfu, 1).c_str(),
                    fixed(e.memory.total_bytes / (1024.0 * 1024 * 1024), 1).c_str(), e.explanation.c_str());
      else
        std::printf("%d. %s\n   %s tokens/s per GPU%s | step %s s | MFU %s%% | bubble %s%% | attention fwd %s ms, bwd %s ms | %s GiB per GPU\n   %s\n",
                    ++rank, e.candidate.label().c_str(), fixed(m.tokens_per_s_per_gpu, 1).c_str(),
                    band_text(e.scenario, m.tokens_per_s_per_gpu).c_str(),
                    fixed(m.step_s, 3).c_str(), fixed(100.0 * m.mfu, 1).c_str(),
                    fixed(100.0 * m.pipeline_bubble_fraction, 1).c_str(),
                    fixed(m.attention_forward_s * 1e3, 2).c_str(), fixed(m.attention_backward_s * 1e3, 2).c_str(),
                    fixed(e.memory.total_bytes / (1024.0 * 1024 * 1024), 1).c_str(), e.explanation.c_str());
    }
    for (const auto& n : out.notes) std::printf("\nnote: %s\n", n.c_str());
    if (!out.invalid_reasons.empty()) {
      std::printf("rejected by validation (first error of each, numbers as N):\n");
      for (const auto& [why, n] : out.invalid_reasons) std::printf("  %5zu x %s\n", n, why.c_str());
    }
    if (!out.out_of_memory_reasons.empty()) {
      std::printf("rejected for memory (valid, above %.1f GiB):\n", base.cluster.gpu.memory_bytes / (1024.0 * 1024 * 1024));
      for (const auto& [why, n] : out.out_of_memory_reasons) std::printf("  %5zu x %s\n", n, why.c_str());
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
  auto* cmd = app.add_subcommand("plan", "Find the parallel layouts (tp, cp, comm type, pp, vpp, dp, micro-batch, recompute, "
                                         "optimizer) that fit in memory, best tokens/s per GPU (or TTFT) first");
  auto args = std::make_shared<PlanArgs>();
  cmd->add_option("FILE", args->positional, "scenario file followed by key.path=value overrides")->required();
  cmd->add_option("--gpus", args->gpus, "number of GPUs, 1.." + std::to_string(kMaxGpus) +
                                          " (default: the scenario's nodes x gpus_per_node)")
      ->check(int_range(1, kMaxGpus));
  cmd->add_option("--top", args->top, "how many configurations to print (default 5)")->check(int_range(1, 1000));
  cmd->add_option("--backend", args->backend, "backend that predicts each configuration (default analytic)")
      ->check(non_empty("--backend: the backend name"));
  cmd->add_option("--metric", args->metric, "ranking metric: tokens_per_s_per_gpu (training default), ttft_s "
                                            "(prefill default), step_s, mfu, attention_s, ...");
  cmd->add_option("--recompute", args->recompute, "only this recomputation: none | selective | full (default: search all three)")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  cmd->add_option("--format", args->format, "text | json");
  cmd->add_option("-j,--jobs", args->jobs, "predict in this many worker processes (default 1)")->check(int_range(1, 1024));
  cmd->add_flag("--hyperparallel", args->hyperparallel,
                "also rank MindSpore HyperParallel's CP modes (ulysses_degree unset, 1, 1 with load_balance, every "
                "divisor of cp; ContextParallel and AsyncContextParallel) beside Megatron's (on by itself when the "
                "scenario has a hyperparallel: section)");
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim plan scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16 --top 5"}},
                    {{"hcpsim plan scenarios/llama3-70b-128k-dgx-h100-hcp.yaml train.global_batch_size=16 --gpus 64"}},
                    {{"hcpsim plan scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --recompute full --metric attention_s"}},
                    {{"hcpsim plan scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16 --hyperparallel"}}},
       .after = "The global batch (train.global_batch_size) is kept; tp, cp, comm type, pp, vpp, dp, micro-batch size,\n"
                "recomputation and the distributed optimizer are searched; sequence parallelism is on whenever tp > 1.\n"
                "Only configurations that validate and fit in GPU memory are proposed. Exit 1 when none does."}));
  cmd->callback([args, &ctx]() { ctx.exit_code = run_in_mpi_job("plan", [&](MpiJob* job) { return run_plan_command(*args, job); }); });
}

}  // namespace hcpsim::cli
