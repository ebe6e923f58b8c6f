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
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "engine/app/measure.h"
#include "kernels/bf16_tile_kernels.h"
#include "kernels/cpu_bf16_tile_device.h"
#include "kernels/run_check.h"
#endif
#ifdef HCPSIM_HAVE_CUDA
#include "kernels/cuda_tile_device.h"
#include "kernels/device.h"
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
  double tolerance = 0;   // 0: the device's default (kernels::default_check_tolerance)
};

#if defined(HCPSIM_HAVE_CUDA) || defined(HCPSIM_HAVE_MPI_RUNNER)
// The check's outcome, as text or in the JSON object `j`; returns the exit code (1 above the tolerance).
int report_check(const RunArgs& a, const reference::VerifyResult& c, const std::string& tiles, nlohmann::json* j) {
  if (j) (*j)["check"] = kernels::check_report_json(c, tiles);
  else std::cout << kernels::check_report_text(c) << '\n';
  if (c.ok) return 0;
  std::cerr << "hcpsim run: error: --check: the outputs differ from dense attention by more than " << c.tolerance
            << '\n';
  return 1;
}
#endif

#ifdef HCPSIM_HAVE_MPI_RUNNER
// Test hook of the GPU check's tile path on CPUs: HCPSIM_CHECK_TILES=cpu-bf16 makes `--device cpu
// --check` compute every attention tile as the GPU check does (bf16 in and out, bf16_tile_kernels.h)
// on the CPU, so that CI runs that path with real MPI messages.
bool cpu_bf16_tiles_requested() {
  const char* v = std::getenv("HCPSIM_CHECK_TILES");
  if (v == nullptr || *v == '\0') return false;
  if (std::string(v) == "cpu-bf16") return true;
  throw std::runtime_error(std::string("HCPSIM_CHECK_TILES=") + v + ": the only value is cpu-bf16");
}

// mpirun -np N hcpsim run FILE --device cpu [--check]: every rank a CPU process, real data. With
// `tiles` (the GPU check, or the cpu-bf16 test hook), the attention tiles run on those kernels.
int run_loaded_on_cpus(const RunArgs& a, const Scenario& s, reference::TileKernels* tiles = nullptr,
                       bool bf16_tiles = false, const char* device = "cpu") {
  int code = 0;
  kernels::CpuRunOptions o;
  o.warmup = a.warmup;
  o.timeout_s = a.timeout_s;
  o.seed = a.seed;
  o.check = a.check;
  kernels::CpuBf16TileDevice cpu_bf16;
  kernels::Bf16TileKernels cpu_bf16_tiles(cpu_bf16);
  std::optional<reference::VerifyResult> check;
  app::Measurement m;
  try {
    if (tiles == nullptr && a.check && cpu_bf16_tiles_requested()) {
      tiles = &cpu_bf16_tiles;
      bf16_tiles = true;
    }
    o.tiles = tiles;
    o.bf16_tiles = bf16_tiles;
    o.tolerance = a.tolerance > 0 ? a.tolerance : kernels::default_check_tolerance(bf16_tiles);
    kernels::require_real_data_size(s, o.check, o.bf16_tiles);
    std::ostream& log = a.format == "json" ? std::cerr : std::cout;
    m = app::measure(
        s,
        [&](const TaskGraph& g, const RankLayout& layout) -> std::optional<Trace> {
          kernels::CpuRunResult r = kernels::run_graph_on_cpus(s, g, layout, o, log);
          check = std::move(r.check);
          if (!r.reporting_rank) return std::nullopt;
          return std::move(r.trace);
        },
        {.with_payloads = true});
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << std::endl;
    kernels::abort_all_ranks(1);   // ends every other rank of the job (no-op without MPI)
    return 1;
  }
  if (m.reporting_rank) {
    if (!a.trace.empty() && !write_trace_file(m.trace, a.trace, "run")) code = 1;
    const std::string tiles_name = tiles ? tiles->name() : "";
    if (a.format == "json") {
      nlohmann::json j;
      j["device"] = device;
      j["scenario"] = m.trace.scenario;
      j["ranks"] = m.trace.world_size;
      j["tasks"] = m.trace.events.size();
      double makespan_s = 0;
      for (const auto& e : m.trace.events) makespan_s = std::max(makespan_s, e.end_s);
      j["measured_s"] = makespan_s;
      if (!a.trace.empty() && code == 0) j["trace"] = a.trace;
      const int check_code = check ? report_check(a, *check, tiles_name, &j) : 0;
      std::cout << j.dump(2) << '\n';
      code = std::max(code, check_code);
    } else {
      std::cout << report_to_text(m.report);
      if (tiles)
        std::cout << "Attention tiles on " << tiles_name << "; data moves and merges on the CPU processes "
                  << "(MPI messages). Durations are wall-clock times of this check run, not GPU times.\n";
      else
        std::cout << "Durations are wall-clock times of CPU processes (real data, real messages), not GPU times.\n";
      if (check) code = std::max(code, report_check(a, *check, tiles_name, nullptr));
      if (!a.trace.empty() && code == 0) std::cout << "trace written to " << a.trace << '\n';
    }
  }
  kernels::finalize_mpi();
  return code;
}

int run_on_cpus(const RunArgs& a) {
  int code = 0;
  const auto loaded = load_for_command(a.scenario.file, a.scenario.overrides, code);
  return loaded ? run_loaded_on_cpus(a, *loaded) : code;
}
#endif

#ifdef HCPSIM_HAVE_CUDA
// hcpsim run FILE --emulate-ranks --check: every rank of the schedule in this process with real
// data, each attention tile on GPU 0 (the CUDA kernels, bf16), data moves and merges on the host.
int check_on_one_gpu(const RunArgs& a, const Scenario& s) {
  try {
    kernels::require_real_data_size(s, true, true);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << '\n';
    return 1;
  }
  std::string why;
  if (kernels::cuda_device_count(&why) == 0) {
    std::cerr << "hcpsim run: error: no CUDA device found (" << why
              << "); `mpirun -np N hcpsim run FILE --device cpu --check` checks the schedule on CPU processes\n";
    return 1;
  }
  if (!a.trace.empty()) {
    std::cerr << "hcpsim run: error: --trace: --emulate-ranks --check checks numbers and measures nothing; run "
                 "without --check for a measured trace\n";
    return 1;
  }
  const double tolerance = a.tolerance > 0 ? a.tolerance : kernels::default_check_tolerance(true);
  reference::VerifyResult c;
  std::string tiles_name;
  try {
    kernels::CudaTileDevice gpu;
    kernels::Bf16TileKernels tiles(gpu);
    tiles_name = tiles.name();
    c = kernels::check_in_one_process(s, &tiles, a.seed, tolerance);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << '\n';
    return 1;
  }
  nlohmann::json j;
  if (a.format == "json") {
    j["device"] = "gpu";
    j["emulate_ranks"] = true;
    j["scenario"] = s.display_name();
    j["tasks"] = c.tasks;
  } else {
    std::cout << "Every rank of " << s.display_name() << " in one process (" << c.tasks
              << " tasks, real data): attention tiles on " << tiles_name << ", data moves and merges on the host.\n";
  }
  const int code = report_check(a, c, tiles_name, a.format == "json" ? &j : nullptr);
  if (a.format == "json") std::cout << j.dump(2) << '\n';
  return code;
}

#ifdef HCPSIM_HAVE_NCCL_RUNNER
// mpirun -np N hcpsim run FILE --check: the CPU runner's schedule and MPI messages with real data,
// each rank's attention tiles on its local GPU (the CUDA kernels, bf16).
int check_on_gpus(const RunArgs& a, const Scenario& s) {
  try {
    kernels::require_real_data_size(s, true, true);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << std::endl;
    kernels::abort_all_ranks(1);
    return 1;
  }
  std::string why;
  const int devices = kernels::cuda_device_count(&why);
  if (devices == 0) {
    std::cerr << "hcpsim run: error: no CUDA device found (" << why
              << "); `--device cpu --check` checks the schedule on CPU processes\n";
    kernels::abort_all_ranks(1);
    return 1;
  }
  try {
    kernels::select_local_gpu(devices);
    kernels::CudaTileDevice gpu;
    kernels::Bf16TileKernels tiles(gpu);
    return run_loaded_on_cpus(a, s, &tiles, true, "gpu");
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << std::endl;
    kernels::abort_all_ranks(1);
    return 1;
  }
}
#else
int check_on_gpus(const RunArgs&, const Scenario&) {
  std::cerr << "hcpsim run: error: --check without --emulate-ranks runs one MPI process per GPU: it needs hcpsim-mpi "
               "(a build with MPI and NCCL)\n";
  return 1;
}
#endif

int run_on_gpus(const RunArgs& a) {
  int code = 0;
  const auto loaded = load_for_command(a.scenario.file, a.scenario.overrides, code);
  if (!loaded) return code;
  if (a.check) return a.emulate ? check_on_one_gpu(a, *loaded) : check_on_gpus(a, *loaded);
  kernels::GpuRunOptions o;
  o.timeout_s = a.timeout_s;
  o.emulate = {.warmup = a.warmup, .iterations = a.iterations, .seed = a.seed,
               .gpus_per_node = loaded->cluster.gpus_per_node};
  app::Measurement m;
  try {
    if (a.emulate) {
      m = app::measure(*loaded, [&](const TaskGraph& g, const RankLayout&) {
        return std::optional(kernels::emulate_on_gpu(g, o.emulate, std::cerr));
      });
    } else {
#ifdef HCPSIM_HAVE_NCCL_RUNNER
      m = app::measure(*loaded, [&](const TaskGraph& g, const RankLayout& layout) -> std::optional<Trace> {
        Trace t = kernels::run_graph_on_gpus(*loaded, g, layout, o, std::cerr);
        if (t.events.empty()) return std::nullopt;   // an MPI rank other than 0
        return t;
      });
#else
      throw std::logic_error("multi-process GPU runs are hcpsim-mpi's");
#endif
    }
  } catch (const std::exception& e) {
    std::cerr << "hcpsim run: error: " << e.what() << std::endl;
#ifdef HCPSIM_HAVE_NCCL_RUNNER
    if (!a.emulate) kernels::abort_all_ranks(1);   // ends every other rank of the job
#endif
    return 1;
  }
  if (m.reporting_rank) {
    std::cout << report_to_text(m.report);
    if (a.emulate)
      std::cout << "Compute durations are measured (median of " << a.iterations
                << " runs); start times and transfer durations are placed on the graph, not measured.\n";
    else
      std::cout << "Durations are measured on the GPUs (CUDA events on a common clock), transfers included.\n";
    if (!a.trace.empty()) {
      if (!write_trace_file(m.trace, a.trace, "run")) code = 1;
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
                "Run the schedule on real data and compare every rank's O, dQ, dK, dV with dense attention; exit 1 "
                "above the tolerance (GPUs: attention tiles on the CUDA kernels, small shapes only)");
  cmd->add_option("--tolerance", args->tolerance,
                  "--check: largest max relative error accepted (default 1e-4 on CPUs, 3e-2 on GPUs: bf16 tiles)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", args->format, "Output format of the summary (--device cpu, --check)")
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
                 "Compute tasks run on synthetic data of the task's shape. --check runs the schedule on real data\n"
                 "instead (the CPU runner's data moves and merges, every attention tile on the CUDA kernels in bf16)\n"
                 "and compares O, dQ, dK, dV with dense attention: default tolerance 3e-2 on GPUs (bf16), 1e-4 on\n"
                 "CPUs; model.kv_channels 64 or 128, seq_length^2 x heads x kv_channels x micro_batch_size <= 2^32.",
       .examples = {{{"hcpsim run scenarios/llama3-8b-64k-dgx-h100-p2p.yaml model.seq_length=8192 --emulate-ranks --trace measured.json"}},
                    {{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml model.seq_length=8192 --trace predicted.json"}},
                    {{"hcpsim compare predicted.json measured.json"}}},
       .after = "On 8 GPUs: mpirun -np 8 hcpsim run scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --trace measured.json\n"
                 "On 4 CPU processes: mpirun -np 4 --oversubscribe hcpsim run tests/runner/cpu-small.yaml --device cpu --check"}));
  cmd->callback([args, &ctx]() {
    // Multi-process runs (--device cpu, or GPUs without --emulate-ranks) live in hcpsim-mpi, which
    // links MPI; hcpsim links SimGrid, whose SMPI defines the same symbols (cli/run_worker.h).
    [[maybe_unused]] const bool multi_process = args->device == "cpu" || !args->emulate;
    if (args->tolerance > 0 && !args->check) {
      std::cerr << "hcpsim run: error: --tolerance: only with --check\n";
      ctx.exit_code = 1;
      return;
    }
    if (args->format != "text" && args->device != "cpu" && !args->check) {
      std::cerr << "hcpsim run: error: --format json: with --device cpu or --check (GPU timing runs print text)\n";
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
