#include "kernels/run_scenario.h"

#include <ostream>
#include <stdexcept>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "kernels/device.h"
#include "kernels/distributed_run.h"

namespace hcpsim::kernels {

GpuRunResult run_on_gpus(const Scenario& s, const GpuRunOptions& o, std::ostream& log) {
  std::string why;
  if (cuda_device_count(&why) == 0)
    throw std::runtime_error("no CUDA device found (" + why +
                             "); run this on a machine with an NVIDIA GPU, or use `hcpsim simulate` for a prediction");
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions go = graph_options_from(s);
  go.with_payloads = false;
  const TaskGraph g = build_task_graph(s, layout, go);
  GpuRunResult r;
  if (!o.emulate_ranks) {
    if (!launched_by_mpi() && g.world_size > 1)
      throw std::runtime_error("the scenario has " + std::to_string(g.world_size) +
                               " ranks: start one process per GPU with `mpirun -np " + std::to_string(g.world_size) +
                               " hcpsim run FILE`, or use --emulate-ranks on one GPU");
    DistributedOptions d;
    d.warmup = o.emulate.warmup;
    d.seed = o.emulate.seed;
    d.timeout_s = o.timeout_s;
    d.gpus_per_node = s.cluster.gpus_per_node;
    try {
      r.trace = run_distributed(g, layout, d, log);
    } catch (const std::exception&) {
      abort_all_ranks(1);
      throw;
    }
    r.reporting_rank = !r.trace.events.empty();
  } else {
    log << describe_cuda_devices() << g.world_size << " ranks, " << g.size() << " tasks, emulated on GPU 0\n";
    EmulateOptions eo = o.emulate;
    eo.gpus_per_node = s.cluster.gpus_per_node;
    r.trace = run_emulated(g, eo, [&](std::size_t done, std::size_t total) {
      if (done == total || done % 16 == 0) log << "\rmeasured " << done << "/" << total << " task shapes" << std::flush;
    });
    log << '\n';
  }
  if (r.trace.scenario.empty()) r.trace.scenario = s.name;
  return r;
}

void finish_gpu_run() { finalize_mpi(); }

}  // namespace hcpsim::kernels
