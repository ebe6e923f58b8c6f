// hcpsim calibrate [FILE [k=v...]] [--out calib.yaml]: measure this machine's GPUs for the cost model.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/calibrate_from_trace.h"
#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "engine/app/help_footer.h"
#ifdef HCPSIM_HAVE_CUDA
#include "kernels/calibrate.h"
#endif

namespace hcpsim::cli {
namespace {

struct CalibrateArgs {
  std::vector<std::string> positional;   // [FILE [k=v...]]
  std::string out;
  bool quick = false;
  int iterations = 5;
  std::vector<std::string> from_trace;
  std::string kernel_rules;
};

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
  cmd->add_option("--iterations", args->iterations, "Timed runs per point (median)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--from-trace", args->from_trace,
                  "Fit the tables from a profiled run of the scenario instead of measuring: PyTorch profiler "
                  "traces, folders of them or Nsight Systems SQLite exports (docs/validation.md)");
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
    if (!args->from_trace.empty()) {
      ctx.exit_code = calibrate_from_trace({args->from_trace, args->kernel_rules, file, overrides, args->out});
      return;
    }
#ifdef HCPSIM_HAVE_CUDA
    kernels::CalibrateRequest r;
    std::optional<Scenario> scenario;
    if (!file.empty()) {
      int code = 0;
      scenario = load_for_command(file, overrides, code);
      if (!scenario) {
        ctx.exit_code = code;
        return;
      }
      r.scenario = &*scenario;
    }
    r.out_path = args->out;
    r.quick = args->quick;
    r.iterations = args->iterations;
    ctx.exit_code = kernels::run_calibration(r, std::cout, std::cerr);
#else
    std::cerr << "hcpsim calibrate: error: this hcpsim was built without CUDA support (configure with "
                 "-DHCPSIM_WITH_CUDA=ON on a machine with nvcc, NCCL and MPI and an NVIDIA GPU)\n";
    ctx.exit_code = 1;
#endif
  });
}

}  // namespace hcpsim::cli
