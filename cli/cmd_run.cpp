// hcpsim run FILE [k=v...]: run the scenario's task graph on GPUs (or CPU processes) and write a
// measured trace.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "cli/trace_file.h"
#include "engine/app/help_footer.h"
#if defined(HCPSIM_HAVE_CUDA) || defined(HCPSIM_HAVE_MPI_RUNNER)
#include <iomanip>
#include <map>
#include <nlohmann/json.hpp>
#endif
#ifdef HCPSIM_HAVE_CUDA
#include "kernels/run_scenario.h"
#endif
#ifdef HCPSIM_HAVE_NCCL_RUNNER
#include "kernels/distributed_run.h"
#endif
#ifdef HCPSIM_RUN_WORKER
#include "cli/run_worker.h"
#endif
#ifdef HCPSIM_HAVE_MPI_RUNNER
#include "kernels/cpu_run.h"
#include "kernels/mpi_comm.h"
#endif

namespace hcpsim::cli {
namespace {

struct RunArgs {
  ScenarioArgs scenario;
  std::string trace;
  std::string device = "gpu";
  std::string format = "text";
  bool check = false;
  bool emulate = false;
  int iterations = 5;
  int warmup = 1;
  unsigned long long seed = 1;
  double timeout_s = 120;
};

#if defined(HCPSIM_HAVE_CUDA) || defined(HCPSIM_HAVE_MPI_RUNNER)
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
#endif

#ifdef HCPSIM_HAVE_MPI_RUNNER
// mpirun -np N hcpsim run FILE --device cpu [--check]: every rank a CPU process, real data.
int run_on_cpus(const RunArgs& a) {
  int code = 0;
  const auto loaded = load_for_command(a.scenario.file, a.scenario.overrides, code);
  if (!loaded) return code;
  kernels::CpuRunOptions o;
  o.warmup = a.warmup;
  o.timeout_s = a.timeout_s;
  o.seed = a.seed;
  o.check = a.check;
  kernels::CpuRunResult r;
  try {
    r = kernels::run_on_cpus(*loaded, o, a.format == "json" ? std::cerr : std::cout);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << std::endl;
    kernels::abort_all_ranks(1);   // ends every other rank of the job (no-op without MPI)
    return 1;
  }
  if (r.reporting_rank) {
    if (!a.trace.empty() && !write_trace_file(r.trace, a.trace, "run")) code = 1;
    if (a.format == "json") {
      nlohmann::json j;
      j["device"] = "cpu";
      j["scenario"] = r.trace.scenario;
      j["ranks"] = r.trace.world_size;
      j["tasks"] = r.trace.events.size();
      double makespan_s = 0;
      for (const auto& e : r.trace.events) makespan_s = std::max(makespan_s, e.end_s);
      j["measured_s"] = makespan_s;
      if (!a.trace.empty() && code == 0) j["trace"] = a.trace;
      if (r.check) {
        const auto& c = *r.check;
        const double worst = std::max({c.out, c.dq, c.dk, c.dv});
        j["check"] = {{"max_rel_error", worst}, {"out", c.out}, {"dq", c.dq}, {"dk", c.dk}, {"dv", c.dv},
                      {"tolerance", c.tolerance}, {"ok", c.ok}};
        if (!c.detail.empty()) j["check"]["detail"] = c.detail;
      }
      std::cout << j.dump(2) << '\n';
    } else {
      print_summary(r.trace, std::cout);
      std::cout << "Durations are wall-clock times of CPU processes (real data, real messages), not GPU times.\n";
      if (r.check) {
        const auto& c = *r.check;
        char line[160];
        std::snprintf(line, sizeof line, "check: max relative error %.3g (O %.3g, dQ %.3g, dK %.3g, dV %.3g; tolerance %.0e)",
                      std::max({c.out, c.dq, c.dk, c.dv}), c.out, c.dq, c.dk, c.dv, c.tolerance);
        std::cout << line << '\n';
        if (!c.detail.empty()) std::cout << "check: " << c.detail << '\n';
      }
      if (!a.trace.empty() && code == 0) std::cout << "trace written to " << a.trace << '\n';
    }
    if (r.check && !r.check->ok) {
      std::cerr << "hcpsim run: error: --check: the outputs differ from dense attention by more than "
                << r.check->tolerance << '\n';
      code = 1;
    }
  }
  kernels::finalize_mpi();
  return code;
}
#endif

#ifdef HCPSIM_HAVE_CUDA
int run_on_gpus(const RunArgs& a) {
  int code = 0;
  const auto loaded = load_for_command(a.scenario.file, a.scenario.overrides, code);
  if (!loaded) return code;
  if (a.check) {
    std::cerr << "hcpsim run: error: --check on GPUs is not implemented yet: the GPU runner times the tasks on "
                 "synthetic data; `mpirun -np N hcpsim run FILE --device cpu --check` runs the same per-rank schedule "
                 "on real data and checks it\n";
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
#ifdef HCPSIM_HAVE_NCCL_RUNNER
    r = a.emulate ? kernels::run_on_gpus(*loaded, o, std::cerr) : kernels::run_distributed_scenario(*loaded, o, std::cerr);
#else
    r = kernels::run_on_gpus(*loaded, o, std::cerr);
#endif
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << std::endl;
#ifdef HCPSIM_HAVE_NCCL_RUNNER
    if (!a.emulate) kernels::abort_all_ranks(1);   // ends every other rank of the job
#endif
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
#ifdef HCPSIM_HAVE_NCCL_RUNNER
  kernels::finalize_mpi();
#endif
  return code;
}
#endif

}  // namespace

void add_run_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a scenario's task graph on real GPUs and record a measured trace");
  add_scenario_args(*cmd, args->scenario);
  cmd->add_option("--trace", args->trace, "Write the measured Chrome trace (same task ids as `simulate --trace`)");
  cmd->add_option("--device", args->device,
                  "gpu: CUDA kernels + NCCL; cpu: one MPI process per rank, the reference kernels on real data")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  cmd->add_flag("--check", args->check,
                "--device cpu: compare every rank's O, dQ, dK, dV with dense attention; exit 1 above 1e-4");
  cmd->add_option("--format", args->format, "Output format of the summary (--device cpu)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
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
                 "Compute tasks run on synthetic data of the task's shape. --check (O, dQ, dK, dV against the reference)\n"
                 "runs with --device cpu (MPI processes); on GPUs it is not implemented yet.",
       .examples = {{{"hcpsim run scenarios/llama3-8b-64k-dgx-h100-p2p.yaml model.seq_length=8192 --emulate-ranks --trace measured.json"}},
                    {{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml model.seq_length=8192 --trace predicted.json"}},
                    {{"hcpsim compare predicted.json measured.json"}}},
       .after = "On 8 GPUs: mpirun -np 8 hcpsim run scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --trace measured.json\n"
                 "On 4 CPU processes: mpirun -np 4 --oversubscribe hcpsim run tests/runner/cpu-small.yaml --device cpu --check"}));
  cmd->callback([args, &ctx]() {
    // Multi-process runs (--device cpu, or GPUs without --emulate-ranks) live in hcpsim-mpi, which
    // links MPI; hcpsim links SimGrid, whose SMPI defines the same symbols (cli/run_worker.h).
    [[maybe_unused]] const bool multi_process = args->device == "cpu" || !args->emulate;
    if (args->format != "text" && args->device != "cpu") {
      std::cerr << "hcpsim run: error: --format json: only with --device cpu for now\n";
      ctx.exit_code = 1;
      return;
    }
#ifdef HCPSIM_RUN_WORKER
    if (multi_process) {
      ctx.exit_code = exec_run_worker(ctx);
      return;
    }
#endif
    if (args->device == "cpu") {
#ifdef HCPSIM_HAVE_MPI_RUNNER
      ctx.exit_code = run_on_cpus(*args);
#else
      std::cerr << "hcpsim run: error: --device cpu needs a build with MPI (apt install libopenmpi-dev openmpi-bin, "
                   "configure with -DHCPSIM_WITH_MPI=ON)\n";
      ctx.exit_code = 1;
#endif
      return;
    }
#if defined(HCPSIM_HAVE_CUDA) && !defined(HCPSIM_RUN_WORKER) && !defined(HCPSIM_HAVE_NCCL_RUNNER)
    if (multi_process) {
      std::cerr << "hcpsim run: error: runs without --emulate-ranks need hcpsim-mpi (a build with MPI and NCCL)\n";
      ctx.exit_code = 1;
      return;
    }
#endif
#ifdef HCPSIM_HAVE_CUDA
    ctx.exit_code = run_on_gpus(*args);
#else
    std::cerr << "hcpsim run: error: this hcpsim was built without CUDA support (configure with "
                 "-DHCPSIM_WITH_CUDA=ON on a machine with nvcc, NCCL and MPI); `hcpsim simulate "
              << args->scenario.file << "` predicts the same scenario, and `mpirun -np N hcpsim run "
              << args->scenario.file << " --device cpu` runs it on CPU processes\n";
    ctx.exit_code = 1;
#endif
  });
}

}  // namespace hcpsim::cli
