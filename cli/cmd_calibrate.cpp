// hcpsim calibrate [FILE [k=v...]] [--out calib.yaml]: measure this machine's GPUs for the cost model.
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/calibrate_from_trace.h"
#include "cli/calibrate_model_table.h"
#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "engine/app/help_footer.h"
#ifdef HCPSIM_HAVE_CUDA
#include "cli/calibrate_print.h"
#include "kernels/calibrate.h"
#include "kernels/interference_probe.h"
#endif

namespace hcpsim::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> positional;   // [FILE [k=v...]]
  std::string out;
  bool quick = false;
  bool grid = false;
  bool interference = false;
  bool devices = false;
  bool model_table = false;
  int iterations = 5;
  std::vector<std::string> from_trace;
  std::string kernel_rules;
};

// The flags that do something else than measure the tables; with --from-trace, at most one is given.
struct ModeFlag {
  const char* name;
  bool CalibrateArgs::*set;
  bool needs_file;   // works on the scenario's shapes
  const char* help;
};
const ModeFlag kModeFlags[] = {
    {"--grid", &CalibrateArgs::grid, true,
     "Held out: the standard grid only, without the scenario's attention shapes or grid points of their "
     "size (needs FILE), so that predicting the scenario with it is not fitted to the scenario"},
    {"--interference", &CalibrateArgs::interference, false,
     "Instead of the tables: attention alone and beside a bandwidth-bound copy holding 8/16/32 SMs on a "
     "second stream, against the model's comm_compute_interference (CSV)"},
    {"--devices", &CalibrateArgs::devices, false,
     "Instead of measuring: the CUDA runtime, driver, GPUs (name, SMs) and NCCL library found; exit 1 "
     "without a GPU"},
    {"--model-table", &CalibrateArgs::model_table, true,
     "Instead of measuring (no GPU needed): the cost model's time for every distinct attention shape of "
     "FILE's graph and its layer GEMMs (bf16, FP8), as CSV for bench/gpu/torch_tables.py"},
};

// "" when the mode flags given go together (and with FILE), else the error.
std::string mode_flags_error(const CalibrateArgs& a, bool have_file) {
  int modes = a.from_trace.empty() ? 0 : 1;
  std::string names;
  const ModeFlag* needs_file = nullptr;
  for (const ModeFlag& m : kModeFlags) {
    names += std::string(m.name) + ", ";
    if (!(a.*m.set)) continue;
    ++modes;
    if (m.needs_file && !have_file) needs_file = &m;
  }
  if (modes > 1)
    return names.substr(0, names.size() - 2) + " and --from-trace are separate modes; give at most one";
  if (needs_file != nullptr)
    return std::string(needs_file->name) + " needs a scenario FILE (its shapes are what it holds out / tabulates)";
  return "";
}

#ifdef HCPSIM_HAVE_CUDA
int run_measurements(const CalibrateArgs& a, const Scenario* scenario) {
  try {
    if (a.devices) return cli::print_devices(std::cout) > 0 ? 0 : 1;
    if (a.interference) {
      kernels::InterferenceRequest r;
      r.scenario = scenario;
      r.iterations = a.iterations;
      print_interference_csv(kernels::probe_interference(r), std::cout);
      return 0;
    }
    kernels::CalibrateRequest r;
    r.scenario = scenario;
    r.quick = a.quick;
    r.held_out_grid = a.grid;
    r.iterations = a.iterations;
    const kernels::CalibrationResult c = kernels::measure_calibration(r);
    print_calibration(c, std::cout);
    if (a.out.empty()) {
      std::cout << '\n' << c.yaml;
      return 0;
    }
    std::ofstream f(a.out);
    if (!(f << c.yaml)) {
      std::cerr << "hcpsim calibrate: error: cannot write " << a.out << '\n';
      return 1;
    }
    std::cout << "\ncalibration written to " << a.out << '\n';
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "hcpsim calibrate: error: " << e.what() << '\n';
    return 1;
  }
}
#endif

}  // namespace

void add_calibrate_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* cmd = app.add_subcommand("calibrate", "Measure attention kernels, copies and NCCL on this machine's GPUs "
                                              "and write a calibration file for the cost model");
  cmd->add_option("scenario", args->positional,
                   "Optional scenario YAML [k=v...]: its GPU peak and link bandwidth are the nominal values, "
                   "and its attention shapes are measured too");
  cmd->add_option("--out,-o", args->out, "Write the calibration YAML here (default: print it)");
  cmd->add_flag("--quick", args->quick, "Fewer shapes and message sizes");
  for (const ModeFlag& m : kModeFlags) cmd->add_flag(m.name, (*args).*m.set, m.help);
  cmd->add_option("--iterations", args->iterations, "Timed runs per point (median)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--from-trace", args->from_trace,
                  "Fit the tables (attention, GEMM, send/recv and collectives by op, message and link class, launch "
                  "overheads) from a profiled run of the scenario instead of measuring: PyTorch profiler traces, "
                  "folders of them or Nsight Systems SQLite exports (docs/validation.md)");
  cmd->add_option("--kernel-rules", args->kernel_rules, "With --from-trace: YAML file of extra kernel classification rules");
  cmd->footer(app::format_help_footer(
      {.before = "Attention efficiency = FLOPs (docs/schedules.md, exact causal pairs) / time / nominal bf16 peak;\n"
                 "link efficiency = bytes a rank sends / time / nominal intra-node bandwidth (NCCL over the local\n"
                 "GPUs, needs 2 or more). The file is the format of `cluster.calibration` (docs/metrics.md \"Calibration file format\").",
       .examples = {{{"hcpsim calibrate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --quick --out calib.yaml"}},
                    {{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml cluster.calibration=calib.yaml --trace predicted.json"}},
                    {{"hcpsim calibrate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --from-trace tests/data/measured/megatron-llama3-8b-64k-p2p --out fitted.yaml"},
                     "from a profiled run's traces (no GPU needed)"}}}));
  cmd->callback([args, &ctx]() {
    std::string file;
    std::vector<std::string> overrides;
    for (const auto& p : args->positional) {
      if (file.empty() && p.find('=') == std::string::npos) file = p;
      else overrides.push_back(p);
    }
    if (file.empty() && !overrides.empty()) {
      std::cerr << "hcpsim calibrate: error: overrides (" << overrides.front() << ") need a scenario FILE first\n";
      ctx.exit_code = 2;
      return;
    }
    if (!args->kernel_rules.empty() && args->from_trace.empty()) {
      std::cerr << "hcpsim calibrate: error: --kernel-rules classifies the kernels of --from-trace traces; give --from-trace too\n";
      ctx.exit_code = 2;
      return;
    }
    if (const std::string error = mode_flags_error(*args, !file.empty()); !error.empty()) {
      std::cerr << "hcpsim calibrate: error: " << error << '\n';
      ctx.exit_code = 2;
      return;
    }
    if (!args->from_trace.empty()) {
      ctx.exit_code = calibrate_from_trace({args->from_trace, args->kernel_rules, file, overrides, args->out});
      return;
    }
    std::optional<Scenario> scenario;
    if (!file.empty()) {
      int code = 0;
      scenario = load_for_command(file, overrides, code);
      if (!scenario) {
        ctx.exit_code = code;
        return;
      }
    }
    if (args->model_table) {
      print_model_table(*scenario, std::cout);
      return;
    }
#ifdef HCPSIM_HAVE_CUDA
    ctx.exit_code = run_measurements(*args, scenario ? &*scenario : nullptr);
#else
    std::cerr << "hcpsim calibrate: error: this hcpsim was built without CUDA support (configure with "
                 "-DHCPSIM_WITH_CUDA=ON on a machine with nvcc, NCCL and MPI and an NVIDIA GPU)\n";
    ctx.exit_code = 1;
#endif
  });
}

}  // namespace hcpsim::cli
