// hcpsim compare PREDICTED MEASURED...: error of a prediction against a measured run, task by task
// (an hcpsim trace) or kernel kind by kernel kind (PyTorch profiler traces, Nsight Systems exports).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "engine/app/help_footer.h"
#include "engine/compare/compare_format.h"
#include "engine/compare/measured_compare.h"
#include "engine/compare/trace_compare.h"
#include "engine/measured/measured_input.h"
#include "engine/trace/trace.h"

namespace hcpsim::cli {
namespace {

struct CompareArgs;
void compare_with_profile(const CompareArgs& args, const Trace& predicted, CliContext& ctx);

struct CompareArgs {
  std::string predicted;
  std::vector<std::string> measured;
  std::string kernel_rules;
  std::string format = "text";
  std::size_t worst = 10;
  bool strict = false;
};

void compare_with_profile(const CompareArgs& args, const Trace& predicted, CliContext& ctx) {
  const KernelClassifier classifier(args.kernel_rules.empty() ? std::vector<KernelRule>{}
                                                              : load_kernel_rules_file(args.kernel_rules));
  const MeasuredRun run = read_measured_run(args.measured, classifier);
  const MeasuredCompareResult r = compare_with_measured(predicted, run);
  if (args.format == "json") {
    std::cout << measured_compare_to_json(r) << '\n';
  } else {
    std::cout << "predicted: " << args.predicted << " (" << predicted.events.size() << " events, backend "
              << (predicted.backend.empty() ? "?" : predicted.backend) << ")\nmeasured:  " << run.ranks.size()
              << " ranks of " << run.format << " traces, world size " << run.world_size << "\n";
    write_measured_compare_text(r, std::cout);
  }
  bool any_common = false;
  for (const auto& [rank, f] : r.ranks) any_common = any_common || (f.in_predicted && f.in_measured);
  if (!any_common) {
    std::cerr << "hcpsim compare: error: no rank of " << args.predicted << " was measured (see the notes above)\n";
    ctx.exit_code = 1;
  }
}

}  // namespace

void add_compare_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare a predicted trace with a measured run: an hcpsim trace (task by task) or profiler "
                 "traces (PyTorch profiler / Kineto, Nsight Systems SQLite; kernel kind by kernel kind)");
  cmd->add_option("predicted", args->predicted, "Chrome-trace JSON written by simulate --trace")
      ->required();
  cmd->add_option("measured", args->measured,
                  "Measured run: an hcpsim trace (run --trace), or PyTorch profiler traces (one per rank, "
                  ".json/.json.gz), folders of them, or Nsight Systems SQLite exports; FILE@N states a file's rank")
      ->required();
  cmd->add_option("--kernel-rules", args->kernel_rules,
                  "YAML file of extra kernel classification rules (docs/validation.md \"Kernel classification\")");
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--worst", args->worst, "How many tasks with the largest error to list")
      ->capture_default_str();
  cmd->add_flag("--strict", args->strict,
                "Exit 1 when tasks are missing, duplicated or mismatched between the traces");
  cmd->footer(app::format_help_footer(
      {.before = "Relative error = (predicted - measured) / measured per task; + means the prediction is slower.\n"
                 "Reported per task kind, per pass and per rank (mean and signed max), the pass spans, and the\n"
                 "tasks with the largest error. Tasks present in only one trace are listed.",
       .examples = {{{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --backend analytic --trace predicted.json"}},
                    {{"hcpsim simulate scenarios/llama3-8b-64k-dgx-h100-p2p.yaml --trace measured.json"}, "or `hcpsim run` on GPUs"},
                    {{"hcpsim compare predicted.json measured.json"}},
                    {{"hcpsim compare predicted.json measured.json --format json --worst 20"}},
                    {{"hcpsim compare predicted.json tests/data/measured/megatron-llama3-8b-64k-p2p"},
                     "a folder of PyTorch profiler traces, one per rank (or Nsight Systems .sqlite exports)"}}}));
  cmd->callback([args, &ctx]() {
    Trace predicted, measured;
    try {
      predicted = read_chrome_trace(args->predicted);
      if (args->measured.size() != 1 || !is_hcpsim_trace_file(args->measured.front())) {
        compare_with_profile(*args, predicted, ctx);
        return;
      }
      measured = read_chrome_trace(args->measured.front());
    } catch (const std::exception& e) {
      std::cerr << "hcpsim compare: error: " << e.what() << '\n';
      ctx.exit_code = 1;
      return;
    }
    CompareOptions opt;
    opt.worst_count = args->worst;
    const CompareResult r = compare_traces(predicted, measured, opt);
    if (args->format == "json") {
      std::cout << compare_to_json(r) << '\n';
    } else {
      std::cout << "predicted: " << args->predicted << " (" << predicted.events.size()
                << " events, backend " << (predicted.backend.empty() ? "?" : predicted.backend)
                << ")\nmeasured:  " << args->measured.front() << " (" << measured.events.size()
                << " events, backend " << (measured.backend.empty() ? "?" : measured.backend)
                << ")\n";
      write_compare_text(r, std::cout);
    }
    if (r.matched == 0) {
      std::cerr << "hcpsim compare: error: no task of " << args->predicted << " matches a task of "
                << args->measured.front() << " (are they traces of the same scenario?)\n";
      ctx.exit_code = 1;
    } else if (args->strict && !r.clean()) {
      std::cerr << "hcpsim compare: the traces do not hold the same task set (see the lists above)\n";
      ctx.exit_code = 1;
    }
  });
}

}  // namespace hcpsim::cli
