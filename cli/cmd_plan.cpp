// hcpsim plan: enumerate every parallel layout of the scenario's model on N GPUs, keep the valid ones
// that fit in memory, predict them and print the best K with one sentence each.
#include <CLI/CLI.hpp>
#include <memory>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "cli/mpi_job.h"
#include "cli/plan_output.h"
#include "cli/scenario_args.h"
#include "engine/app/backend_catalog.h"
#include "engine/app/help_footer.h"
#include "engine/app/point_eval.h"
#include "engine/cost/cost_model.h"
#include "engine/planning/min_gpus.h"
#include "engine/planning/planner.h"
#include "engine/planning/planner_bound.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"
#include "engine/validate/validate_without_placement.h"

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
  int threads = 0;           // 0 = the CPUs of this machine
  bool hyperparallel = false;   // HyperParallel's CP modes as candidates too
  bool no_prune = false;        // predict every slice, even those whose bound cannot place
  std::string emit;          // directory for the layouts' files
  bool min_gpus = false;
  int gpus_max = 0;
  double target_tokens_per_s = 0;
  double train_tokens = 0;
  double train_days = 0;
};

// The predictor shared by the planner's threads: one backend run per model-parallel slice.
class SharedPredictor {
 public:
  SharedPredictor(std::string backend, const BackendRegistry& registry) : backend_(std::move(backend)), registry_(registry) {}
  planning::PointMetrics operator()(const Scenario& s) {
    const std::string key = planning::layer_cache_key(s, backend_);
    planning::LayerCache local;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto it = cache_.find(key);
      if (it != cache_.end()) local.emplace(key, it->second);
    }
    const planning::PointMetrics m = planning::predict_scenario(s, backend_, registry_, &local);
    std::lock_guard<std::mutex> lock(mutex_);
    if (cache_.count(key) == 0) {
      // The layer's figures are what the step needs; its per-task lists are dropped (a plan keeps
      // thousands of slices).
      Report slim = std::move(local.at(key));
      slim.critical_path = {};
      slim.layers = {};
      cache_.emplace(key, std::move(slim));
    }
    return m;
  }

 private:
  std::string backend_;
  const BackendRegistry& registry_;
  std::mutex mutex_;
  planning::LayerCache cache_;
};


// Under mpirun (`job` set) every rank enumerates the same candidates and predicts its share of the
// model-parallel slices; rank 0 gathers, ranks and prints (the others print nothing).
int run_plan_command(const PlanArgs& a, MpiJob* job) {
  using namespace planning;
  const bool root = !job || job->rank() == 0;
  if (a.format != "text" && a.format != "json") {
    std::cerr << "hcpsim plan: --format " << a.format << ": valid formats are text, json\n";
    return 2;
  }
  if ((a.train_tokens > 0) != (a.train_days > 0)) {
    std::cerr << "hcpsim plan: --train-tokens and --train-days go together (a token budget within a time)\n";
    return 2;
  }
  if (!a.min_gpus && (a.gpus_max > 0 || a.target_tokens_per_s > 0 || a.train_tokens > 0)) {
    std::cerr << "hcpsim plan: --gpus-max, --tokens-per-s and --train-tokens/--train-days apply to --min-gpus\n";
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
  PlanOptions po;
  po.gpus = a.gpus;
  po.top = a.top;
  po.jobs = a.jobs;
  po.threads = a.threads > 0 ? a.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  po.metric = a.metric;
  po.search.hyperparallel = a.hyperparallel;
  po.prune = !a.no_prune;
  // The step-time bound holds for the analytic backend's layer graphs (planner_bound.h).
  // Every layout keeps the base's cluster, so its cost model (and calibration file) is built once.
  // A cost model that cannot be built leaves the bound out; the predictions then report why.
  if (a.backend == "analytic") {
    try {
      auto cost = std::make_shared<const CostModel>(base);
      po.step_lower_bounds = [cost](const std::vector<Scenario>& members, const Scenario& layer_run) {
        return step_lower_bounds_s(members, layer_run, *cost);
      };
    } catch (const std::exception&) {
    }
  }
  if (!a.recompute.empty()) po.memory.recompute = parse_recompute(a.recompute);
  po.distribution = job;
  if (root) po.progress = [](std::size_t done, std::size_t total, std::size_t predicted) {
    if (predicted == 0) std::fprintf(stderr, "plan: %zu of %zu configurations checked\n", done, total);
    else std::fprintf(stderr, "plan: %zu fitting configurations predicted\n", predicted);
  };
  SharedPredictor shared(a.backend, app::backend_registry());
  auto predict = [&shared](const Scenario& s) { return shared(s); };
  const std::string backend = a.backend;
  auto slice = [&backend](const Scenario& s) { return layer_cache_key(s, backend); };
  // Errors decide; no placement warnings; each layout's fold planned once.
  auto fold_memo = std::make_shared<FoldMemo>();
  auto validator = [fold_memo](const Scenario& s) { return validate_without_placement(s, fold_memo.get()); };
  PlanOutcome out;
  int gpus = a.gpus > 0 ? a.gpus : base.world_size();
  try {
    if (a.min_gpus) {
      MinGpusOptions mo;
      mo.gpus_max = a.gpus_max;
      mo.tokens_per_s = a.train_tokens > 0 ? a.train_tokens / (a.train_days * 86400.0) : a.target_tokens_per_s;
      const MinGpusOutcome m = min_gpus(base, po, mo, validator, predict, slice);
      if (root)
        for (const std::string& t : m.tried) std::fprintf(stderr, "plan --min-gpus: %s\n", t.c_str());
      if (m.gpus == 0) {
        std::cerr << "hcpsim plan --min-gpus: no GPU count up to " << a.gpus_max << " qualifies; raise --gpus-max\n";
        return 1;
      }
      if (root) std::printf("smallest GPU count: %d\n", m.gpus);
      gpus = m.gpus;
      out = m.plan;
    } else {
      out = plan(base, po, validator, predict, slice);
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcpsim plan: " << e.what() << '\n';
    return 2;
  }
  if (!root) return 0;
  if (gpus > base.cluster.gpus_per_node && !app::backend_registry().create(a.backend)->capabilities().models_contention)
    out.notes.push_back("backend " + a.backend +
                        " does not share links between concurrent flows: the GPUs of a node that send to other "
                        "nodes at once are each timed with their NICs to themselves (NIC sharing is not priced); "
                        "--backend simgrid prices it");
  po.gpus = gpus;
  const PlanPrint pp{a.positional[0], lo.overrides, a.backend, gpus};
  if (a.format == "json") print_plan_json(base, out, pp);
  else print_plan_text(base, out, pp);
  if (!a.emit.empty() && !emit_plan(base, out, pp, a.emit)) return 1;
  if (out.best.empty()) {
    explain_nothing_fits(base, out, po);
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
  cmd->add_option("--threads", args->threads, "check and predict on this many threads (default: every CPU)")
      ->check(int_range(1, 1024));
  cmd->add_option("--emit", args->emit, "write each listed layout to this folder: plan-K.yaml (a ready scenario), "
                                        ".overrides, .megatron.sh (pretrain_gpt.py arguments) and .bridge (Megatron-Bridge overrides)");
  cmd->add_flag("--min-gpus", args->min_gpus, "find the smallest GPU count (up to --gpus-max) on which a layout fits "
                                              "and, when given, reaches --tokens-per-s or --train-tokens in --train-days");
  cmd->add_option("--gpus-max", args->gpus_max, "with --min-gpus: the largest count tried")->check(int_range(1, kMaxGpus));
  cmd->add_option("--tokens-per-s", args->target_tokens_per_s, "with --min-gpus: whole-job tokens/s to reach")
      ->check(CLI::Range(0.0, 1e15));
  cmd->add_option("--train-tokens", args->train_tokens, "with --min-gpus and --train-days: the token budget")
      ->check(CLI::Range(0.0, 1e18));
  cmd->add_option("--train-days", args->train_days, "with --min-gpus and --train-tokens: the time to train it in, days")
      ->check(CLI::Range(0.0, 1e5));
  cmd->add_flag("--hyperparallel", args->hyperparallel,
                "also rank MindSpore HyperParallel's CP modes (ulysses_degree unset, 1, 1 with load_balance, every "
                "divisor of cp; ContextParallel and AsyncContextParallel) beside Megatron's (on by itself when the "
                "scenario has a hyperparallel: section)");
  cmd->add_flag("--no-prune", args->no_prune,
                "predict every fitting layout's slice, also those whose step-time bound is below the K-th best "
                "(by default they are left out and counted as not predicted)");
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim plan scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16 --top 5"}},
                    {{"hcpsim plan scenarios/llama3-70b-128k-dgx-h100-hcp.yaml train.global_batch_size=16 --gpus 64"}},
                    {{"hcpsim plan scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --recompute full --metric attention_s"}},
                    {{"hcpsim plan scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16 --hyperparallel"}},
                    {{"hcpsim plan scenarios/llama3-70b-128k-dgx-h100-hcp.yaml --min-gpus --gpus-max 512 --train-tokens 1e11 --train-days 30"}},
                    {{"hcpsim plan scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --gpus 16 --top 3 --emit /tmp/hcpsim-plans"}}},
       .after = "The global batch (train.global_batch_size) is kept; tp, cp, comm type, pp, vpp, dp, micro-batch size,\n"
                "recomputation and the distributed optimizer are searched; sequence parallelism is on whenever tp > 1.\n"
                "Only configurations that validate and fit in GPU memory are proposed. Exit 1 when none does."}));
  cmd->callback([args, &ctx]() { ctx.exit_code = run_in_mpi_job("plan", [&](MpiJob* job) { return run_plan_command(*args, job); }); });
}

}  // namespace hcpsim::cli
