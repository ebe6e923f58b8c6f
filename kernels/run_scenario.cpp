#include "kernels/run_scenario.h"

#include <cuda_runtime_api.h>

#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>

#include "engine/core/diagnostics.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/validate.h"
#include "engine/schedule/build.h"
#include "kernels/device.h"
#include "kernels/distributed_run.h"

namespace hcpsim::kernels {
namespace {

void print_summary(const Trace& tr, std::ostream& out) {
  struct Row { std::size_t count = 0; double sum_s = 0; double flops = 0; };
  std::map<std::string, Row> rows;
  for (const auto& e : tr.events) {
    Row& r = rows[std::string(to_string(e.pass)) + " " + to_string(e.kind)];
    ++r.count;
    r.sum_s += e.end_s - e.start_s;
    r.flops += e.flops;
  }
  out << std::left << std::setw(32) << "pass / kind" << std::right << std::setw(8) << "tasks"
      << std::setw(16) << "sum (ms)" << std::setw(14) << "TFLOP/s" << '\n';
  for (const auto& [k, r] : rows) {
    out << std::left << std::setw(32) << k << std::right << std::setw(8) << r.count << std::setw(16)
        << std::fixed << std::setprecision(3) << r.sum_s * 1e3 << std::setw(14);
    if (r.flops > 0 && r.sum_s > 0) out << std::setprecision(1) << r.flops / r.sum_s / 1e12;
    else out << "-";
    out << '\n';
  }
}

}  // namespace

int run_scenario(const RunRequest& r, std::ostream& out, std::ostream& err) {
  Scenario s;
  try {
    LoadOptions lo;
    lo.overrides = r.overrides;
    s = load_scenario_file(r.file, lo);
  } catch (const ScenarioError& e) {
    err << format_diagnostics(e.diagnostics(), e.file());
    return 1;
  } catch (const std::exception& e) {
    err << "hcpsim run: error: " << e.what() << '\n';
    return 1;
  }
  const Diagnostics diags = validate(s);
  if (diags.has_errors()) {
    err << format_diagnostics(diags, r.file);
    return 1;
  }
  if (r.check) {
    err << "hcpsim run: error: --check is not implemented yet: the GPU runner times the tasks on synthetic "
           "data and does not carry the schedule's numerical payloads (`hcpsim verify` proves a schedule on CPU)\n";
    return 1;
  }
  std::string why;
  const int devices = cuda_device_count(&why);
  if (devices == 0) {
    err << "hcpsim run: error: no CUDA device found (" << why << "); run this on a machine with an NVIDIA GPU, "
        << "or use `hcpsim simulate` for a prediction\n";
    return 1;
  }
  try {
    const RankLayout layout = RankLayout::from_scenario(s);
    GraphOptions go = graph_options_from(s);
    go.with_payloads = false;
    const TaskGraph g = build_task_graph(s, layout, go);
    if (!r.emulate_ranks) {
      if (!launched_by_mpi() && g.world_size > 1) {
        err << "hcpsim run: error: the scenario has " << g.world_size << " ranks: start one process per GPU with "
            << "`mpirun -np " << g.world_size << " hcpsim run " << r.file << "`, or use --emulate-ranks on one GPU\n";
        return 1;
      }
      DistributedOptions dopt;
      dopt.warmup = r.emulate.warmup;
      dopt.seed = r.emulate.seed;
      dopt.timeout_s = r.timeout_s;
      dopt.gpus_per_node = s.cluster.gpus_per_node;
      Trace tr;
      try {
        tr = run_distributed(g, layout, dopt, out);
      } catch (const std::exception& e) {
        err << "hcpsim run: error: " << e.what() << '\n' << std::flush;
        abort_all_ranks(1);
        return 1;
      }
      int code = 0;
      if (!tr.events.empty()) {   // MPI rank 0
        if (tr.scenario.empty()) tr.scenario = s.name;
        print_summary(tr, out);
        if (!r.trace_path.empty()) {
          std::ofstream f(r.trace_path);
          if (f) {
            write_chrome_trace(tr, f);
            out << "trace written to " << r.trace_path << '\n';
          } else {
            err << "hcpsim run: error: cannot write trace file " << r.trace_path << '\n';
            code = 1;
          }
        }
      }
      finalize_mpi();
      return code;
    }
    out << describe_cuda_devices();
    out << "scenario " << (s.name.empty() ? r.file : s.name) << ": " << g.world_size << " ranks, " << g.size()
        << " tasks, emulated on GPU 0\n";
    EmulateOptions eo = r.emulate;
    eo.gpus_per_node = s.cluster.gpus_per_node;
    Trace tr = run_emulated(g, eo, [&](std::size_t done, std::size_t total) {
      if (done == total || done % 16 == 0) err << "\rmeasured " << done << "/" << total << " task shapes" << std::flush;
    });
    err << '\n';
    if (tr.scenario.empty()) tr.scenario = s.name;
    print_summary(tr, out);
    out << "Compute durations are measured (median of " << eo.iterations
        << " runs); start times and transfer durations are placed on the graph, not measured.\n";
    if (!r.trace_path.empty()) {
      std::ofstream f(r.trace_path);
      if (!f) {
        err << "hcpsim run: error: cannot write trace file " << r.trace_path << '\n';
        return 1;
      }
      write_chrome_trace(tr, f);
      out << "trace written to " << r.trace_path << '\n';
    }
  } catch (const std::exception& e) {
    err << "\nhcpsim run: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace hcpsim::kernels
