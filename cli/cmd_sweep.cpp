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
  std::string recompute = "none";
  std::string shard;   // "I/N", "" = every point
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

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The header of this run's part file: the shard and what defines the sweep (sweep_shard.h).
planning::ShardHeader shard_header(const planning::SweepSpec& spec, const std::string& file,
                                   const std::vector<std::string>& extra, const std::string& recompute,
                                   const planning::ShardSpec& shard) {
  using namespace planning;
  SweepDescriptionInput in;
  in.file = file;
  in.file_text = file_text(file);
  in.base_text = file_text(spec.base_path);
  in.extra_overrides = extra;
  in.recompute = recompute;
  try {
    LoadOptions lo;
    lo.overrides = spec.overrides;
    lo.overrides.insert(lo.overrides.end(), extra.begin(), extra.end());
    in.configuration = load_scenario_file(spec.base_path, lo).configuration();
  } catch (const std::exception&) {
    in.configuration = "";   // only the axes make it load; the file hashes still identify it
  }
  ShardHeader h;
  h.shard = shard;
  h.sweep = describe_sweep(spec, in);
  h.sweep_id = sweep_id(h.sweep);
  return h;
}

// --resume of a results file: it must be the same shard of the same sweep (or, without --shard, no
// shard at all). Returns an error message, "" when it may be continued.
std::string resume_mismatch(const std::string& out, const std::optional<planning::ShardHeader>& mine) {
  using namespace planning;
  if (!std::filesystem::exists(out) || std::filesystem::file_size(out) == 0) return "";
  const std::optional<ShardHeader> theirs = read_shard_header(out);
  if (!mine && theirs)
    return out + " is shard " + to_string(theirs->shard) + " of a sharded sweep: resume it with --shard " +
           to_string(theirs->shard);
  if (mine && !theirs)
    return out + " has no shard header: it is not a part file of --shard " + to_string(mine->shard) +
           "; use another --out file";
  if (mine && theirs && theirs->sweep_id != mine->sweep_id)
    return out + " is a part of another sweep (sweep " + theirs->sweep_id + ", this one is " + mine->sweep_id +
           "): the sweep file, the base scenario, the overrides, the axes, the backend or --recompute changed; "
           "use another --out file";
  if (mine && theirs && (theirs->shard.index != mine->shard.index || theirs->shard.count != mine->shard.count))
    return out + " is shard " + to_string(theirs->shard) + ", not " + to_string(mine->shard) +
           ": use --shard " + to_string(theirs->shard) + " or another --out file";
  return "";
}

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

// Under mpirun every rank runs this function with the same arguments (`job` set); rank 0 reads and
// writes the files and prints, the others only evaluate their share of the points.
int run_sweep_command(const SweepArgs& a, MpiJob* job) {
  using namespace planning;
  const bool root = !job || job->rank() == 0;
  const bool talk = root && !quiet();
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
  std::optional<ShardSpec> shard;
  if (!a.shard.empty()) {
    try {
      shard = parse_shard(a.shard);
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
  MemoryOptions memory;
  memory.recompute = parse_recompute(a.recompute);

  if (!spec.backend.empty() && !check_backend_option("sweep", spec.backend)) return 2;
  const BackendRegistry& registry = app::backend_registry();

  const std::vector<std::string> extra(a.positional.begin() + 1, a.positional.end());
  std::vector<SweepPoint> points = expand_points(spec, extra);
  const std::size_t all_points = points.size();
  const std::vector<std::string> columns = sweep_columns(spec);
  SweepRunOptions ro;
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
  if (talk) {
    std::cerr << "sweep: " << points.size() << " points of " << spec.base_path
              << (spec.backend.empty() ? "" : " with backend " + spec.backend);
    if (shard) std::cerr << " (shard " << to_string(*shard) << " of " << all_points << " points)";
    if (job && job->size() > 1) std::cerr << " on " << job->size() << " MPI ranks, " << ro.jobs << " workers each";
    std::cerr << '\n';
  }
  const std::string base = spec.base_path;
  const std::string backend = spec.backend;
  const SweepOutcome outcome = run_sweep(points, columns, [&](const SweepPoint& p) {
    return evaluate_point(base, p, backend, registry, memory);
  }, ro);
  if (!root) return 0;
  if (outcome.resumed > 0 && talk)
    std::cerr << "sweep: " << outcome.resumed << " points taken from " << a.out << ", " << outcome.evaluated
              << " run now\n";
  if (talk) std::cerr << "sweep: " << outcome.evaluated << " points in " << outcome.wall_s << " s ("
            << (outcome.wall_s > 0 ? outcome.evaluated / outcome.wall_s : 0.0) << " points/s)\n";

  print_results(outcome.results, columns, metric, a.format);
  if (!a.plot.empty()) {
    std::vector<PointResult> rs = outcome.results;
    sort_results(rs, metric);
    write_charts(rs, columns, metric, spec.base_path, a.plot);
  }
  for (const auto& r : outcome.results)
    if (r.status == PointStatus::Error) return 1;
  return 0;
}

int run_merge_command(const MergeArgs& a) {
  using namespace planning;
  const std::string ext = std::filesystem::path(a.out).extension().string();
  if (ext != ".csv" && ext != ".json" && ext != ".jsonl") {
    std::cerr << "hcpsim sweep merge: --out " << a.out << ": the file name must end in .csv, .json or .jsonl (got '"
              << ext << "'), like the part files\n";
    return 2;
  }
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
  try {
    (void)metric_value(PointResult{}, metric);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcpsim sweep merge: --sort: " << e.what() << '\n';
    return 2;
  }
  write_results_file(a.out, m.results, m.columns);
  if (!quiet())
    std::cerr << "sweep merge: " << m.shards << " shards, " << m.results.size() << " points written to " << a.out
              << '\n';
  print_results(m.results, m.columns, metric, a.format);
  for (const auto& r : m.results)
    if (r.status == PointStatus::Error) return 1;
  return 0;
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
  cmd->add_flag("--resume", args->resume, "skip the points already in --out (an interrupted sweep continues)");
  cmd->add_option("-j,--jobs", args->jobs, "worker processes at once (default: number of CPUs; under mpirun, divided among the ranks on "
                  "each machine)")->check(int_range(0, 1024));
  cmd->add_option("--recompute", args->recompute, "activation recomputation for the memory estimate: none | selective | full")
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
