#include "kernels/run_scenario.h"

#include <ostream>
#include <stdexcept>

#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "kernels/device.h"
#include "kernels/emulated_run.h"

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
  if (!o.emulate_ranks)
    throw std::logic_error("run_on_gpus emulates ranks on one GPU; multi-process runs are run_distributed_scenario's "
                           "(hcpsim-mpi)");
  GpuRunResult r;
  log << describe_cuda_devices() << g.world_size << " ranks, " << g.size() << " tasks, emulated on GPU 0\n";
  EmulateOptions eo = o.emulate;
  eo.gpus_per_node = s.cluster.gpus_per_node;
  r.trace = run_emulated(g, eo, [&](std::size_t done, std::size_t total) {
    if (done == total || done % 16 == 0) log << "\rmeasured " << done << "/" << total << " task shapes" << std::flush;
  });
  log << '\n';
  if (r.trace.scenario.empty()) r.trace.scenario = s.name;
  return r;
}

}  // namespace hcpsim::kernels
