// hcpsim sweep: run a scenario over a Cartesian product of overrides, one worker process per point.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <iostream>
#include <optional>
#include <sstream>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "cli/mpi_job.h"
#include "cli/plot_chart.h"
#include "cli/scenario_args.h"
#include "cli/sweep_emit.h"
#include "cli/sweep_part_files.h"
#include "cli/verbosity.h"
#include "engine/app/backend_catalog.h"
#include "engine/app/help_footer.h"
#include "engine/app/point_eval.h"
#include "engine/planning/sweep_chart.h"
#include "engine/planning/sweep_merge.h"
#include "engine/planning/sweep_runner.h"
#include "engine/planning/sweep_shard.h"
#include "engine/planning/sweep_spec.h"
#include "engine/scenario/loader.h"

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
  std::string recompute;   // "" = each point's own model.recompute_granularity
  std::string shard;   // "I/N", "" = every point
  std::string emit;    // directory for the points' files
  bool resume = false;
  int jobs = 0;
  double timeout_s = 0;
};

struct MergeArgs {
  std::vector<std::string> parts;
  std::string out;
  std::string format = "table";
  std::string sort;
};

void print_results(std::vector<planning::PointResult> rs, const std::vector<std::string>& columns,
                   const std::string& metric, const std::string& format) {
  using namespace planning;
  sort_results(rs, metric);
  if (format == "csv") write_csv(std::cout, rs, columns);
  else if (format == "json") write_json(std::cout, rs, columns);
  else write_table(std::cout, rs, columns);
}

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

// --format and --sort (the metric, `metric` once defaulted) of the final table; 0, or the exit code.
int check_table_args(const std::string& me, const std::string& format, const std::string& metric) {
  try {
    (void)planning::metric_value(planning::PointResult{}, metric);
  } catch (const std::invalid_argument& e) {
    std::cerr << me << ": --sort: " << e.what() << '\n';
    return 2;
  }
  if (format != "table" && format != "csv" && format != "json") {
    std::cerr << me << ": --format " << format << ": valid formats are table, csv, json\n";
    return 2;
  }
  return 0;
}

// A results file's name chooses its format: .csv, or .json/.jsonl (JSON lines).
bool results_file_name_ok(const std::string& me, const std::string& out, const char* why) {
  const std::string ext = std::filesystem::path(out).extension().string();
  if (ext == ".csv" || ext == ".json" || ext == ".jsonl") return true;
  std::cerr << me << ": --out " << out << ": the file name must end in .csv, .json or .jsonl (got '" << ext << "'), "
            << why << '\n';
  return false;
}

// FILE (a scenario or a sweep file) and the --vary axes; 0, or the exit code.
int load_spec(const SweepArgs& a, planning::SweepSpec& spec) {
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
  return 0;
}

// --out, --resume, --shard and --plot; 0, or the exit code.
int check_outputs(const SweepArgs& a, std::optional<planning::ShardSpec>& shard) {
  if (!a.out.empty() && !results_file_name_ok("hcpsim sweep", a.out, "which chooses the format")) return 2;
  if (a.resume && a.out.empty()) {
    std::cerr << "hcpsim sweep: --resume needs --out FILE (the results file to continue)\n";
    return 2;
  }
  if (!a.shard.empty()) {
    try {
      shard = planning::parse_shard(a.shard);
    } catch (const std::invalid_argument& e) {
      std::cerr << "hcpsim sweep: " << e.what() << '\n';
      return 2;
    }
    if (a.out.empty()) {
      std::cerr << "hcpsim sweep: --shard " << a.shard << " needs --out FILE (e.g. --out part-" << shard->index
                << ".csv): the part file that `hcpsim sweep merge` joins with the other shards\n";
      return 2;
    }
  }
  if (!a.plot.empty() && !chart_rendering_available()) {
    std::cerr << "hcpsim sweep: --plot needs Qt6 Charts, which this build does not have (the GUI was not "
                 "built); reconfigure with -DHCPSIM_WITH_GUI=ON, or write --out FILE.csv and plot it elsewhere\n";
    return 1;
  }
  return 0;
}

// The overrides of every point: those after FILE, and --recompute as one (the memory column and the
// step time both follow each point's model.recompute_granularity; --recompute sets it for every
// point, never for the memory alone). 0, or the exit code.
int point_overrides(const SweepArgs& a, const planning::SweepSpec& spec, std::vector<std::string>& extra) {
  extra.assign(a.positional.begin() + 1, a.positional.end());
  if (a.recompute.empty()) return 0;
  for (const planning::AxisGroup& g : spec.groups)
    for (const std::string& c : g.columns)
      if (c == "model.recompute_granularity") {
        std::cerr << "hcpsim sweep: --recompute " << a.recompute
                  << " and the axis model.recompute_granularity both set the recomputation; give one of them\n";
        return 2;
      }
  extra.push_back("model.recompute_granularity=" + (a.recompute == "none" ? std::string("null") : a.recompute));
  return 0;
}

planning::SweepRunOptions run_options(const SweepArgs& a, MpiJob* job, bool talk) {
  planning::SweepRunOptions ro;
  ro.jobs = a.jobs;
  if (ro.jobs == 0 && job && job->ranks_on_this_node() > 1) {   // share the CPUs with the other ranks here
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    ro.jobs = std::max(1, static_cast<int>(cpus > 0 ? cpus : 1) / job->ranks_on_this_node());
  }
  ro.out_path = a.out;
  ro.resume = a.resume;
  ro.progress = talk ? &std::cerr : nullptr;
  ro.progress_tty = ::isatty(STDERR_FILENO) != 0;
  ro.point_timeout_s = a.timeout_s;
  ro.distribution = job;
  return ro;
}

// Exit 1 when a point failed (invalid points are results, not failures).
int exit_code_of(const std::vector<planning::PointResult>& rs) {
  for (const auto& r : rs)
    if (r.status == planning::PointStatus::Error) return 1;
  return 0;
}

// Under mpirun every rank runs this function with the same arguments (`job` set); rank 0 reads and
// writes the files and prints, the others only evaluate their share of the points.
int run_sweep_command(const SweepArgs& a, MpiJob* job) {
  using namespace planning;
  const bool root = !job || job->rank() == 0;
  const bool talk = root && !quiet();
  SweepSpec spec;
  if (const int rc = load_spec(a, spec)) return rc;
  const std::string& file = a.positional[0];
  const std::string metric = a.sort.empty() ? spec.metric : a.sort;
  if (const int rc = check_table_args("hcpsim sweep", a.format, metric)) return rc;
  std::optional<ShardSpec> shard;
  if (const int rc = check_outputs(a, shard)) return rc;
  std::vector<std::string> extra;
  if (const int rc = point_overrides(a, spec, extra)) return rc;
  if (!spec.backend.empty() && !check_backend_option("sweep", spec.backend)) return 2;
  const BackendRegistry& registry = app::backend_registry();

  std::vector<SweepPoint> points = expand_points(spec, extra);
  const std::size_t all_points = points.size();
  const std::vector<std::string> columns = sweep_columns(spec);
  SweepRunOptions ro = run_options(a, job, talk);
  std::optional<ShardHeader> header;
  if (shard) {
    header = shard_header(spec, file, extra, a.recompute, *shard);
    ro.preamble = shard_header_line(*header, file_format_for(a.out) == FileFormat::Csv);
    points = shard_points(points, *shard);
  }
  if (root && a.resume) {
    const std::string why = resume_mismatch(a.out, header);
    if (!why.empty()) {
      std::cerr << "hcpsim sweep: --resume: " << why << '\n';
      if (job && job->size() > 1) job->abort_job(1);
      return 1;
    }
  }
  if (talk) {
    std::cerr << "sweep: " << points.size() << " points of " << spec.base_path
              << (spec.backend.empty() ? "" : " with backend " + spec.backend);
    if (shard) std::cerr << " (shard " << to_string(*shard) << " of " << all_points << " points)";
    if (job && job->size() > 1) std::cerr << " on " << job->size() << " MPI ranks, " << ro.jobs << " workers each";
    std::cerr << '\n';
  }
  const MemoryOptions memory;
  const SweepOutcome outcome = run_sweep(points, columns, [&](const SweepPoint& p) {
    return evaluate_point(spec.base_path, p, spec.backend, registry, memory);
  }, ro);
  if (!root) return 0;
  if (outcome.resumed > 0 && talk)
    std::cerr << "sweep: " << outcome.resumed << " points taken from " << a.out << ", " << outcome.evaluated
              << " run now\n";
  if (talk) std::cerr << "sweep: " << outcome.evaluated << " points in " << outcome.wall_s << " s ("
            << (outcome.wall_s > 0 ? outcome.evaluated / outcome.wall_s : 0.0) << " points/s)\n";

  const SweepRows rows{spec.base_path, expand_points(spec, extra), columns};
  if (a.format == "json") {   // each row also as overrides, Megatron-LM arguments and Bridge overrides
    std::vector<PointResult> sorted = outcome.results;
    sort_results(sorted, metric);
    write_sweep_json(std::cout, sorted, rows);
  } else {
    print_results(outcome.results, columns, metric, a.format);
  }
  if (!a.emit.empty() && !emit_sweep(outcome.results, rows, a.emit)) return 1;
  if (!a.plot.empty()) {
    std::vector<PointResult> rs = outcome.results;
    sort_results(rs, metric);
    write_charts(rs, columns, metric, spec.base_path, a.plot);
  }
  return exit_code_of(outcome.results);
}

int run_merge_command(const MergeArgs& a) {
  using namespace planning;
  if (!results_file_name_ok("hcpsim sweep merge", a.out, "like the part files")) return 2;
  if (a.format != "table" && a.format != "csv" && a.format != "json") {
    std::cerr << "hcpsim sweep merge: --format " << a.format << ": valid formats are table, csv, json\n";
    return 2;
  }
  for (const std::string& p : a.parts) {
    std::error_code ec;
    if (std::filesystem::equivalent(p, a.out, ec)) {
      std::cerr << "hcpsim sweep merge: --out " << a.out << " is one of the part files; write the merged file elsewhere\n";
      return 2;
    }
  }
  MergedSweep m;
  try {
    m = merge_shard_files(a.parts);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim sweep merge: error: " << e.what() << '\n';
    return 1;
  }
  if (file_format_for(a.out) != file_format_for(a.parts.front())) {
    std::cerr << "hcpsim sweep merge: --out " << a.out << ": the parts are "
              << (file_format_for(a.parts.front()) == FileFormat::Csv ? "CSV" : "JSON lines")
              << "; merge into the same format (a single run with that --out writes the same file; converting "
                 "CSV's 9 significant digits to JSON would not)\n";
    return 2;
  }
  const std::string metric = a.sort.empty() ? m.metric : a.sort;
  if (const int rc = check_table_args("hcpsim sweep merge", a.format, metric)) return rc;
  write_results_file(a.out, m.results, m.columns);
  if (!quiet())
    std::cerr << "sweep merge: " << m.shards << " shards, " << m.results.size() << " points written to " << a.out
              << '\n';
  print_results(m.results, m.columns, metric, a.format);
  return exit_code_of(m.results);
}

}  // namespace

void add_sweep_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("sweep", "Run a scenario over a grid of overrides (one process per point)");
  auto args = std::make_shared<SweepArgs>();
  cmd->add_option("FILE", args->positional,
                  "scenario file (then --vary) or sweep file (scenarios/sweeps/*.yaml), followed by "
                  "key.path=value overrides applied to every point (required)");
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
  cmd->add_option("--shard", args->shard,
                  "I/N: run only the points whose index mod N is I-1 (shard I of N, from 1), for job arrays; "
                  "needs --out, joined by `hcpsim sweep merge`");
  cmd->add_option("--emit", args->emit,
                  "write each point as a ready scenario, overrides, Megatron-LM arguments and Bridge overrides to DIR "
                  "(point-K.yaml, .overrides, .megatron.sh, .bridge)");
  cmd->add_flag("--resume", args->resume, "skip the points already in --out (an interrupted sweep continues)");
  cmd->add_option("-j,--jobs", args->jobs, "worker processes at once (default: number of CPUs; under mpirun, divided among the ranks on "
                  "each machine)")->check(int_range(0, 1024));
  cmd->add_option("--recompute", args->recompute, "recomputation of every point (model.recompute_granularity: none | selective | full), for its "
                  "step time and its memory (default: each point's own)")
      ->check(CLI::IsMember({"none", "selective", "full"}));
  cmd->add_option("--timeout", args->timeout_s, "kill a point that runs longer than this many seconds (0 = never)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->footer(app::format_help_footer(
      {.examples = {{{"hcpsim sweep scenarios/sweeps/beyond-kv-heads.yaml --out results.csv --plot chart.png"}},
                    {{"hcpsim sweep scenarios/llama3-70b-128k-dgx-h100-hcp.yaml simulation.backend=analytic",
                       "--vary model.context_parallel_size=8,16",
                       "--vary \"model.hierarchical_context_parallel_sizes=[2,4],[4,2],[4,4],[8,2]\" --sort attention_s"}},
                    {{"hcpsim sweep scenarios/sweeps/beyond-kv-heads.yaml --out results.csv --resume"}, "continue"},
                    {{"hcpsim sweep scenarios/sweeps/beyond-kv-heads.yaml --shard 1/2 --out part-1.csv"}, "one shard of two"},
                    {{"hcpsim sweep scenarios/sweeps/beyond-kv-heads.yaml --shard 2/2 --out part-2.csv"}},
                    {{"hcpsim sweep merge part-1.csv part-2.csv --out results.csv"}}},
       .after = "Invalid points stay in the output with their validation message. Exit 0 when every point\n"
                "ran (invalid ones included), 1 when a point failed, 2 on usage errors."}));
  auto* merge = cmd->add_subcommand("merge", "Join the part files of `hcpsim sweep ... --shard I/N --out part-I.csv` "
                                            "into the file one run writes");
  auto margs = std::make_shared<MergeArgs>();
  merge->add_option("PARTS", margs->parts, "the part files, one per shard (e.g. part-*.csv)")->required();
  merge->add_option("--out", margs->out, "merged results file (.csv, or .json/.jsonl like the parts)")->required();
  merge->add_option("--format", margs->format, "final table on stdout: table | csv | json");
  merge->add_option("--sort", margs->sort, "metric to sort the table by (default: the sweep's)");
  merge->footer(
      "Checks that every part is a shard of the same sweep, each shard 1..N once, every point once, and\n"
      "writes the rows in point order: the file a single run of the sweep writes (wall_s aside).\n"
      "Exit 1 when a part is missing, duplicated, of another sweep or incomplete (the message names\n"
      "the files), or when a point failed; 2 on usage errors.");
  merge->callback([margs, &ctx]() { ctx.exit_code = run_merge_command(*margs); });
  cmd->callback([args, merge, &ctx]() {
    if (merge->parsed()) return;
    ctx.exit_code = run_in_mpi_job("sweep", [&](MpiJob* job) { return run_sweep_command(*args, job); });
  });
}

}  // namespace hcpsim::cli
