// hcpsim accuracy DIR [key.path=value ...] [--format text|json] [--max-mean-error X] [--max-error Y]
//                     [--role fit|holdout|all] [--level L] [--require-order] [--plot OUT.png]
//                     [--error-band-table]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/plot_chart.h"
#include "engine/accuracy/accuracy_chart.h"
#include "engine/accuracy/accuracy_writers.h"
#include "engine/accuracy/backtest.h"
#include "engine/accuracy/backtest_bands.h"
#include "engine/accuracy/case_class.h"
#include "engine/accuracy/case_loader.h"
#include "engine/accuracy/case_prediction.h"
#include "engine/error_band/error_band.h"
#include "engine/app/engine_backends.h"
#include "engine/app/help_footer.h"
#include "engine/backend/backend.h"
#include "engine/scenario/schema.h"
#ifdef HCPSIM_HAVE_SIMGRID
#include "sim/simgrid_backend.h"
#endif

namespace hcpsim::cli {
namespace {

struct AccuracyArgs {
  std::string dir;
  std::vector<std::string> overrides;   // applied to every case's scenario, after the case's own
  std::string format = "text";
  double max_mean_error = -1;   // < 0: not given
  double max_error = -1;
  std::string role = "all";
  bool require_order = false;
  std::string plot;
  std::vector<std::string> levels;   // empty = every level
  bool error_band_table = false;  // print error_band_table.cpp instead of the report
};

bool ends_with(const std::string& s, const std::string& suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

std::string join_levels(const std::vector<std::string>& levels) {
  std::string out;
  for (const auto& l : levels) out += (out.empty() ? "" : ",") + l;
  return out;
}

int run(const AccuracyArgs& a) {
  using namespace hcpsim::accuracy;
  const char* me = "hcpsim accuracy: ";
  AccuracyBounds bounds;
  if (a.max_mean_error >= 0) bounds.max_mean_error = a.max_mean_error;
  if (a.max_error >= 0) bounds.max_error = a.max_error;
  bounds.require_order = a.require_order;
  for (const auto& o : a.overrides) {
    const auto eq = o.find('=');
    const std::string path = eq == std::string::npos ? std::string() : o.substr(0, eq);
    if (path.empty() || eq + 1 >= o.size()) {
      std::cerr << me << "error: '" << o << "': expected DIR then key.path=value overrides\n"
                << "  hint: e.g. cluster.efficiency.attention_forward=0.6\n";
      return 2;
    }
    if (!schema::is_known_path(path)) {
      std::cerr << me << "error: override '" << o << "': unknown scenario field '" << path << "'\n"
                << "  hint: " << schema::did_you_mean(path, schema::all_paths()) << '\n';
      return 2;
    }
  }
  if (a.error_band_table && (a.role != "all" || !a.levels.empty() || !a.overrides.empty())) {
    std::cerr << me << "error: --error-band-table takes the bands of the whole folder as it is: no --role, --level or "
                       "overrides\n";
    return 2;
  }
  if (a.role == "fit" && (bounds.max_mean_error || bounds.max_error)) {
    std::cerr << me << "error: --max-mean-error and --max-error bound the holdout cases, and --role fit runs none\n"
              << "  hint: drop --role fit, or the bounds\n";
    return 2;
  }
  if (!a.plot.empty()) {
    if (!ends_with(a.plot, ".png") && !ends_with(a.plot, ".svg")) {
      std::cerr << me << "error: --plot " << a.plot << ": the file name must end in .png or .svg\n";
      return 2;
    }
    if (!chart_rendering_available()) {
      std::cerr << me << "error: --plot needs Qt6 Charts, which this build does not have (the GUI was not built); "
                   "reconfigure with -DHCPSIM_WITH_GUI=ON, or use --format json and plot it elsewhere\n";
      return 1;
    }
  }
  std::vector<AccuracyCase> cases;
  try {
    cases = load_case_folder(a.dir);
  } catch (const std::invalid_argument& e) {   // not a folder, no such folder, no case files
    std::cerr << me << "error: " << e.what() << '\n';
    return 1;
  } catch (const CaseError& e) {
    std::cerr << e.what();
    return 1;
  }
  std::vector<const AccuracyCase*> selected;
  for (const auto& c : cases)
    if ((a.role == "all" || a.role == to_string(c.role)) && (a.levels.empty() || std::find(a.levels.begin(), a.levels.end(), level_of_metric(c.metric)) != a.levels.end()))
      selected.push_back(&c);
  if (selected.empty()) {
    std::cerr << me << "error: '" << a.dir << "' has no " << a.role << " case" << (a.levels.empty() ? "" : " of level " + join_levels(a.levels))
              << " (" << cases.size() << " case(s) in all)\n";
    return 1;
  }

  BackendRegistry backends;
  register_engine_backends(backends);
#ifdef HCPSIM_HAVE_SIMGRID
  sim::register_simgrid_backend(backends);
#endif

  PredictOptions options;
  options.overrides = a.overrides;

  // Progress on stderr once the run has taken more than a second (quick runs stay quiet).
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  BacktestRun run = predict_cases(selected, backends, options, [&](std::size_t i, const AccuracyCase& c) {
    if (elapsed_s() > 1.0)
      std::cerr << "accuracy: [" << i + 1 << "/" << selected.size() << "] " << c.name << " (" << to_string(c.kind)
                << ", " << c.backend << ")\n";
  });
  for (const auto& f : run.failures) std::cerr << f;
  if (!run.failures.empty()) {
    std::cerr << me << "error: " << run.failures.size() << " of " << selected.size()
              << " case(s) could not be predicted (above); no report written\n";
    return 1;
  }
  const AccuracyReport report = make_accuracy_report(std::move(run.results));
  if (a.error_band_table) {
    std::cout << error_band_table_source(error_bands_of(report));
    return 0;
  }
  const std::vector<std::string> violations = bound_violations(report, bounds);
  std::cout << (a.format == "json" ? accuracy_to_json(report, bounds, violations)
                                   : accuracy_to_text(report, bounds, violations));
  if (!a.plot.empty()) {
    try {
      render_chart(make_accuracy_chart(report, "hcpsim accuracy: " + a.dir), a.plot);
    } catch (const std::exception& e) {
      std::cerr << me << "error: " << e.what() << '\n';
      return 1;
    }
  }
  if (!violations.empty()) {
    for (const auto& v : violations) std::cerr << me << v << '\n';
    return 1;
  }
  return 0;
}

}  // namespace

void add_accuracy_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<AccuracyArgs>();
  auto* cmd = app.add_subcommand(
      "accuracy", "backtest the model: predict every case of a folder of measured runs and report the errors");
  cmd->add_option("DIR", args->dir, "folder of case files (*.yaml; format: validation/published/README.md)")
      ->required();
  cmd->add_option("OVERRIDES", args->overrides,
                  "key.path=value overrides applied to every case's scenario after the case's own (what-if: "
                  "how does one parameter move the whole suite?)");
  cmd->add_option("--format", args->format, "report format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--max-mean-error", args->max_mean_error,
                  "exit 1 when the holdout mean absolute error exceeds X (a fraction: 0.10 = 10 %)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-error", args->max_error,
                  "exit 1 when any holdout case's absolute error exceeds Y (a fraction)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--role", args->role, "which cases to run")->check(CLI::IsMember({"fit", "holdout", "all"}));
  cmd->add_flag("--require-order", args->require_order,
                "exit 1 when a group's predicted order differs from its measured order");
  cmd->add_option("--level", args->levels,
                  "only the cases of these levels, comma-separated (what the metric measures; docs/accuracy.md): the "
                  "bounds then apply to them")
      ->delimiter(',')
      ->check(CLI::IsMember({"kernel", "collective", "attention", "layer", "prefill", "whole_step"}));
  cmd->add_flag("--error-band-table", args->error_band_table,
                "print engine/error_band/error_band_table.cpp (the error band of every case class) instead of the report");
  cmd->add_option("--plot", args->plot,
                  "also draw predicted vs measured, log-log, fit and holdout series (.png or .svg; needs the GUI build)");
  cmd->footer(app::format_help_footer(
      {.before = "Signed error = predicted / measured - 1. Exit status: 0 ok, 1 a bound not met or a case that cannot be\n"
                 "read or predicted, 2 usage error.",
       .examples = {{{"hcpsim accuracy validation/published"}},
                    {{"hcpsim accuracy validation/published --format json > accuracy.json"}},
                    {{"hcpsim accuracy validation/published --role fit --level kernel,collective,attention --require-order"}},
                    {{"hcpsim accuracy validation/published --level kernel,collective,attention --max-mean-error 0.10 --max-error 0.20"}},
                    {{"hcpsim accuracy validation/published cluster.efficiency.attention_forward=0.66 --role fit"}},
                    {{"hcpsim accuracy tests/accuracy/data/suite --plot accuracy.png"}}},
       .after = "With bounds, e.g. --max-mean-error 0.10 --max-error 0.20, the command exits 1 when the holdout\n"
                "cases miss them (validation/published misses these today: docs/accuracy.md)."}));
  cmd->callback([args, &ctx]() { ctx.exit_code = run(*args); });
}

}  // namespace hcpsim::cli
