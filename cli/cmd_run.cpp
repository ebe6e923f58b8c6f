// hcpsim run FILE [k=v...]: run the scenario's task graph on GPUs and write a measured trace.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#ifdef HCPSIM_HAVE_CUDA
#include "kernels/run_scenario.h"
#endif

namespace hcpsim::cli {
namespace {

struct RunArgs {
  std::string file;
  std::vector<std::string> overrides;
  std::string trace;
  bool check = false;
  bool emulate = false;
  int iterations = 5;
  int warmup = 1;
  unsigned long long seed = 1;
  double timeout_s = 120;
};

}  // namespace

void add_run_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a scenario's task graph on real GPUs and record a measured trace");
  cmd->add_option("file", args->file, "Scenario YAML")->required();
  cmd->add_option("overrides", args->overrides, "key.path=value overrides");
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
  cmd->footer(
      "Needs a build with CUDA (nvcc, NCCL, MPI found) and an NVIDIA GPU (sm_80 or newer).\n"
      "Without --emulate-ranks: one MPI process per GPU and per rank (mpirun -np WORLD_SIZE), NCCL\n"
      "communicators split per group, every task timed with CUDA events on a common clock\n"
      "(written without a GPU to test it: see docs/validation.md).\n"
      "--emulate-ranks times each task alone with the real kernels and places the measured\n"
      "durations on the graph's dependencies; compare it with a prediction task by task.\n"
      "Compute tasks run on synthetic data of the task's shape; --check is not implemented yet.\n\n"
      "Examples:\n"
      "  mpirun -np 8 hcpsim run s.yaml --trace measured.json\n"
      "  hcpsim run scenarios/small.yaml --emulate-ranks --trace measured.json\n"
      "  hcpsim run s.yaml model.seq_length=8192 --emulate-ranks --iterations 10\n"
      "  hcpsim simulate s.yaml --trace predicted.json && hcpsim compare predicted.json measured.json");
  cmd->callback([args, &ctx]() {
#ifdef HCPSIM_HAVE_CUDA
    kernels::RunRequest r;
    r.file = args->file;
    r.overrides = args->overrides;
    r.trace_path = args->trace;
    r.check = args->check;
    r.emulate_ranks = args->emulate;
    r.emulate.iterations = args->iterations;
    r.emulate.warmup = args->warmup;
    r.emulate.seed = args->seed;
    r.timeout_s = args->timeout_s;
    ctx.exit_code = kernels::run_scenario(r, std::cout, std::cerr);
#else
    std::cerr << "hcpsim run: error: this hcpsim was built without CUDA support (configure with "
                 "-DHCPSIM_WITH_CUDA=ON on a machine with nvcc, NCCL and MPI); `hcpsim simulate "
              << args->file << "` predicts the same scenario\n";
    ctx.exit_code = 1;
#endif
  });
}

}  // namespace hcpsim::cli
