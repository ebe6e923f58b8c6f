// hcpsim run FILE [k=v...]: run the scenario's task graph on GPUs and write a measured trace.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "cli/trace_file.h"
#include "engine/app/help_footer.h"
#ifdef HCPSIM_HAVE_CUDA
#include <iomanip>
#include <map>

#include "kernels/run_scenario.h"
#endif

namespace hcpsim::cli {
namespace {

struct RunArgs {
  ScenarioArgs scenario;
  std::string trace;
  bool check = false;
  bool emulate = false;
  int iterations = 5;
  int warmup = 1;
  unsigned long long seed = 1;
  double timeout_s = 120;
};

#ifdef HCPSIM_HAVE_CUDA
// Measured time per pass and task kind: tasks, summed duration, achieved TFLOP/s.
void print_summary(const Trace& tr, std::ostream& out) {
  struct Row {
    std::size_t count = 0;
    double sum_s = 0, flops = 0;
  };
  std::map<std::string, Row> rows;
  for (const auto& e : tr.events) {
    Row& r = rows[std::string(to_string(e.pass)) + " " + to_string(e.kind)];
    ++r.count;
    r.sum_s += e.end_s - e.start_s;
    r.flops += e.flops;
  }
  out << std::left << std::setw(32) << "pass / kind" << std::right << std::setw(8) << "tasks" << std::setw(16)
      << "sum (ms)" << std::setw(14) << "TFLOP/s" << '\n';
  for (const auto& [k, r] : rows) {
    out << std::left << std::setw(32) << k << std::right << std::setw(8) << r.count << std::setw(16) << std::fixed
        << std::setprecision(3) << r.sum_s * 1e3 << std::setw(14);
    if (r.flops > 0 && r.sum_s > 0) out << std::setprecision(1) << r.flops / r.sum_s / 1e12;
    else out << "-";
    out << '\n';
  }
}

int run_on_gpus(const RunArgs& a) {
  int code = 0;
  const auto loaded = load_for_command(a.scenario.file, a.scenario.overrides, code);
  if (!loaded) return code;
  if (a.check) {
    std::cerr << "hcpsim run: error: --check is not implemented yet: the GPU runner times the tasks on synthetic "
                 "data and does not carry the schedule's numerical payloads (`hcpsim verify` proves a schedule on CPU)\n";
    return 1;
  }
  kernels::GpuRunOptions o;
  o.emulate_ranks = a.emulate;
  o.timeout_s = a.timeout_s;
  o.emulate.iterations = a.iterations;
  o.emulate.warmup = a.warmup;
  o.emulate.seed = a.seed;
  kernels::GpuRunResult r;
  try {
    r = kernels::run_on_gpus(*loaded, o, std::cerr);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << '\n';
    return 1;
  }
  if (r.reporting_rank) {
    print_summary(r.trace, std::cout);
    if (a.emulate)
      std::cout << "Compute durations are measured (median of " << a.iterations
                << " runs); start times and transfer durations are placed on the graph, not measured.\n";
    if (!a.trace.empty()) {
      if (!write_trace_file(r.trace, a.trace, "run")) code = 1;
      else std::cout << "trace written to " << a.trace << '\n';
    }
  }
  kernels::finish_gpu_run();
  return code;
}
#endif

}  // namespace

void add_run_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a scenario's task graph on real GPUs and record a measured trace");
  add_scenario_args(*cmd, args->scenario);
  cmd->add_option("--trace", args->trace, "Write the measured Chrome trace (same task ids as `simulate --trace`)");
  cmd->add_flag("--check", args->check, "Compare outputs with a reference on sampled rows (not implemented yet)");
  cmd->add_flag("--emulate-ranks", args->emulate,
                "Run every rank's tasks on one GPU in this process; transfers become device copies");
  cmd->add_option("--iterations", args->iterations, "Timed runs per distinct task shape (median)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "Untimed runs before timing")->check(CLI::Range(0, 100))->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the synthetic input data")->capture_default_str();
  cmd->add_option("--timeout", args->timeout_s,
                  "Multi-process: seconds one pass over the graph may take before every rank is aborted")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->footer(app::format_help_footer(
      {.before = "Needs a build with CUDA (nvcc, NCCL, MPI found) and an NVIDIA GPU (sm_80 or newer).\n"
                 "Without --emulate-ranks: one MPI process per GPU and per rank (mpirun -np WORLD_SIZE), NCCL\n"
                 "communicators split per group, every task timed with CUDA events on a common clock\n"
                 "(written without a GPU to test it: see docs/validation.md).\n"
                 "--emulate-ranks times each task alone with the real kernels and places the measured\n"
                 "durations on the graph's dependencies; compare it with a prediction task by task.\n"
                 "Compute tasks run on synthetic data of the task's shape; --check is not implemented yet.",
       .examples = {{{"hcpsim run scenarios/llama3-8b-64k-dgx-h100-p2p.yaml model.seq_length=8192 --emulate-ranks --trace measured.json"}},
                    {{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml model.seq_length=8192 --trace predicted.json"}},
                    {{"hcpsim compare predicted.json measured.json"}}},
       .after = "On 8 GPUs: mpirun -np 8 hcpsim run scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --trace measured.json"}));
  cmd->callback([args, &ctx]() {
#ifdef HCPSIM_HAVE_CUDA
    ctx.exit_code = run_on_gpus(*args);
#else
    std::cerr << "hcpsim run: error: this hcpsim was built without CUDA support (configure with "
                 "-DHCPSIM_WITH_CUDA=ON on a machine with nvcc, NCCL and MPI); `hcpsim simulate "
              << args->scenario.file << "` predicts the same scenario\n";
    ctx.exit_code = 1;
#endif
  });
}

}  // namespace hcpsim::cli
