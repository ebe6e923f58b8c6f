// hcpsim compare PREDICTED MEASURED: task-by-task error of a prediction against a measured run.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.h"
#include "engine/app/help_footer.h"
#include "engine/compare/compare_format.h"
#include "engine/compare/trace_compare.h"
#include "engine/trace/trace.h"

namespace hcpsim::cli {
namespace {

struct CompareArgs {
  std::string predicted;
  std::string measured;
  std::string format = "text";
  std::size_t worst = 10;
  bool strict = false;
};

}  // namespace

void add_compare_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare a predicted trace with a measured one, task by task (matched by task id)");
  cmd->add_option("predicted", args->predicted, "Chrome-trace JSON written by simulate --trace")
      ->required();
  cmd->add_option("measured", args->measured, "Chrome-trace JSON written by run --trace")->required();
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
                    {{"hcpsim compare predicted.json measured.json --format json --worst 20"}}}}));
  cmd->callback([args, &ctx]() {
    Trace predicted, measured;
    try {
      predicted = read_chrome_trace(args->predicted);
      measured = read_chrome_trace(args->measured);
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
                << ")\nmeasured:  " << args->measured << " (" << measured.events.size()
                << " events, backend " << (measured.backend.empty() ? "?" : measured.backend)
                << ")\n";
      write_compare_text(r, std::cout);
    }
    if (r.matched == 0) {
      std::cerr << "hcpsim compare: error: no task of " << args->predicted << " matches a task of "
                << args->measured << " (are they traces of the same scenario?)\n";
      ctx.exit_code = 1;
    } else if (args->strict && !r.clean()) {
      std::cerr << "hcpsim compare: the traces do not hold the same task set (see the lists above)\n";
      ctx.exit_code = 1;
    }
  });
}

}  // namespace hcpsim::cli
