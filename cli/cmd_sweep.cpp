// hcpsim sweep: run a scenario over a Cartesian product of overrides, one worker process per point.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <iostream>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "cli/plot_chart.h"
#include "cli/scenario_args.h"
#include "cli/verbosity.h"
#include "engine/app/backend_catalog.h"
#include "engine/app/help_footer.h"
#include "engine/planning/point_eval.h"
#include "engine/planning/sweep_chart.h"
#include "engine/planning/sweep_runner.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::cli {
namespace {

struct SweepArgs {
  std::vector<std::string> positional;   // FILE then k=v overrides
  std::vector<std::string> vary;
  std::string backend;
  std::string out;
  std::string format = "table";
  std::string sort;
  std::string plot;
  std::string recompute = "none";
  bool resume = false;
  int jobs = 0;
  double timeout_s = 0;
};

// One chart per combination of the third and later axes (FILE-<values>.png), else one chart.
void write_charts(const std::vector<planning::PointResult>& rs, const std::vector<std::string>& columns,
                  const std::string& metric, const std::string& base_path, const std::string& plot) {
  using namespace planning;
  const std::string stem = std::filesystem::path(base_path).stem().string();
  const std::vector<std::string> xy(columns.begin(), columns.begin() + std::min<std::size_t>(2, columns.size()));
  std::vector<std::string> group_names;
  std::map<std::string, std::vector<PointResult>> groups;
  for (const auto& r : rs) {
    std::string g;
    for (std::size_t i = 2; i < r.labels.size(); ++i) g += (i > 2 ? "-" : "") + r.labels[i];
    if (!groups.count(g)) group_names.push_back(g);
    PointResult head = r;
    head.labels.resize(xy.size());
    groups[g].push_back(std::move(head));
  }
  const std::filesystem::path p(plot);
  for (const std::string& g : group_names) {
    std::string file = plot;
    std::string title = metric + " vs " + columns[0] + " (" + stem + ")";
    if (!g.empty()) {
      std::string safe;
      for (char c : g) safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
      file = (p.parent_path() / (p.stem().string() + "-" + safe + p.extension().string())).string();
      title += ", " + columns[2] + (columns.size() > 3 ? "..." : "") + " = " + g;
    }
    render_chart(make_chart(groups[g], xy, metric, title), file);
    if (!quiet()) std::cerr << "sweep: chart written to " << file << '\n';
  }
}

int run_sweep_command(const SweepArgs& a) {
  using namespace planning;
  if (a.positional.empty()) {
    std::cerr << "hcpsim sweep: FILE is required (a scenario or a sweep file)\n";
    return 2;
  }
  const std::string& file = a.positional[0];
  if (!std::filesystem::exists(file)) {
    std::cerr << "hcpsim sweep: " << file << ": no such file\n";
    return 1;
  }
  SweepSpec spec;
  if (is_sweep_file(file)) {
    spec = load_sweep_file(file);   // throws runtime_error "FILE:LINE: ..." -> exit 1 in main
  } else {
    spec.base_path = file;
  }
  for (const auto& v : a.vary) {
    try {
      spec.groups.push_back(parse_vary(v));
    } catch (const std::invalid_argument& e) {   // a malformed --vary is a usage error
      std::cerr << "hcpsim sweep: " << e.what() << '\n';
      return 2;
    }
  }
  if (spec.groups.empty()) {
    std::cerr << "hcpsim sweep: nothing to vary: give --vary KEY=V1,V2,... or a sweep file with `vary:`\n";
    return 2;
  }
  if (!a.backend.empty()) spec.backend = a.backend;
  const std::string metric = a.sort.empty() ? spec.metric : a.sort;
  try {
    (void)metric_value(PointResult{}, metric);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcpsim sweep: --sort: " << e.what() << '\n';
    return 2;
  }
  if (a.format != "table" && a.format != "csv" && a.format != "json") {
    std::cerr << "hcpsim sweep: --format " << a.format << ": valid formats are table, csv, json\n";
    return 2;
  }
  if (!a.out.empty()) {
    const std::string ext = std::filesystem::path(a.out).extension().string();
    if (ext != ".csv" && ext != ".json" && ext != ".jsonl") {
      std::cerr << "hcpsim sweep: --out " << a.out << ": the file name must end in .csv, .json or .jsonl (got '"
                << ext << "'), which chooses the format\n";
      return 2;
    }
  }
  if (a.resume && a.out.empty()) {
    std::cerr << "hcpsim sweep: --resume needs --out FILE (the results file to continue)\n";
    return 2;
  }
  if (!a.plot.empty() && !chart_rendering_available()) {
    std::cerr << "hcpsim sweep: --plot needs Qt6 Charts, which this build does not have (the GUI was not "
                 "built); reconfigure with -DHCPSIM_WITH_GUI=ON, or write --out FILE.csv and plot it elsewhere\n";
    return 1;
  }
  MemoryOptions memory;
  memory.recompute = parse_recompute(a.recompute);

  if (!spec.backend.empty() && !check_backend_option("sweep", spec.backend)) return 2;
  const BackendRegistry& registry = app::backend_registry();

  const std::vector<std::string> extra(a.positional.begin() + 1, a.positional.end());
  const std::vector<SweepPoint> points = expand_points(spec, extra);
  const std::vector<std::string> columns = sweep_columns(spec);
  SweepRunOptions ro;
  ro.jobs = a.jobs;
  ro.out_path = a.out;
  ro.resume = a.resume;
  ro.progress = quiet() ? nullptr : &std::cerr;
  ro.progress_tty = ::isatty(STDERR_FILENO) != 0;
  ro.point_timeout_s = a.timeout_s;
  if (!quiet()) std::cerr << "sweep: " << points.size() << " points of " << spec.base_path
            << (spec.backend.empty() ? "" : " with backend " + spec.backend) << '\n';
  const std::string base = spec.base_path;
  const std::string backend = spec.backend;
  SweepOutcome outcome = run_sweep(points, columns, [&](const SweepPoint& p) {
    return evaluate_point(base, p, backend, registry, memory);
  }, ro);
  if (outcome.resumed > 0 && !quiet())
    std::cerr << "sweep: " << outcome.resumed << " points taken from " << a.out << ", " << outcome.evaluated
              << " run now\n";
  if (!quiet()) std::cerr << "sweep: " << outcome.evaluated << " points in " << outcome.wall_s << " s ("
            << (outcome.wall_s > 0 ? outcome.evaluated / outcome.wall_s : 0.0) << " points/s)\n";

  std::vector<PointResult> rs = outcome.results;
  sort_results(rs, metric);
  if (a.format == "csv") write_csv(std::cout, rs, columns);
  else if (a.format == "json") write_json(std::cout, rs, columns);
  else write_table(std::cout, rs, columns);

  if (!a.plot.empty()) write_charts(rs, columns, metric, spec.base_path, a.plot);
  for (const auto& r : rs)
    if (r.status == PointStatus::Error) return 1;
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("sweep", "Run a scenario over a grid of overrides (one process per point)");
  auto args = std::make_shared<SweepArgs>();
  cmd->add_option("FILE", args->positional,
                  "scenario file (then --vary) or sweep file (scenarios/sweeps/*.yaml), followed by "
                  "key.path=value overrides applied to every point")
      ->required();
  cmd->add_option("--vary", args->vary, "KEY=V1,V2,...: one axis (repeatable; [a,b] lists keep their commas)");
  cmd->add_option("--backend", args->backend, "backend for every point (default: the scenario's)")
      ->check(non_empty("--backend: the backend name"));
  cmd->add_option("--out", args->out, "append each result to FILE as it finishes (.csv, or .json/.jsonl: JSON lines)");
  cmd->add_option("--format", args->format, "final table on stdout: table | csv | json");
  cmd->add_option("--sort", args->sort,
                  "metric to sort by (default: the sweep file's, else step_s): step_s, attention_s, "
                  "attention_forward_s, attention_backward_s, layer_forward_s, layer_backward_s, "
                  "attention_tflops_per_gpu, exposed_comm_s, memory_per_gpu_gib");
  cmd->add_option("--plot", args->plot, "chart of the sort metric against the first axis (.png or .svg; needs the GUI build)");
  cmd->add_flag("--resume", args->resume, "skip the points already in --out (an interrupted sweep continues)");
  cmd->add_option("-j,--jobs", args->jobs, "worker processes at once (default: number of CPUs)")->check(int_range(0, 1024));
  cmd->add_option("--recompute", args->recompute, "activation recomputation for the memory estimate: none | selective | full")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  cmd->add_option("--timeout", args->timeout_s, "kill a point that runs longer than this many seconds (0 = never)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim sweep scenarios/sweeps/beyond-kv-heads.yaml --out results.csv --plot chart.png"}},
                    {{"hcpsim sweep scenarios/llama3-70b-128k-dgx-h100-hcp.yaml simulation.backend=analytic",
                       "--vary model.context_parallel_size=8,16",
                       "--vary \"model.hierarchical_context_parallel_sizes=[2,4],[4,2],[4,4],[8,2]\" --sort attention_s"}},
                    {{"hcpsim sweep scenarios/sweeps/beyond-kv-heads.yaml --out results.csv --resume"}, "continue"}},
       .after = "Invalid points stay in the output with their validation message. Exit 0 when every point\n"
                "ran (invalid ones included), 1 when a point failed, 2 on usage errors."}));
  cmd->callback([args, &ctx]() { ctx.exit_code = run_sweep_command(*args); });
}

}  // namespace hcpsim::cli
