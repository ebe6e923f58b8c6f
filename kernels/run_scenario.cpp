#include "kernels/run_scenario.h"

#include <ostream>
#include <stdexcept>

#include "kernels/device.h"
#include "kernels/emulated_run.h"

namespace hcpsim::kernels {

Trace emulate_on_gpu(const TaskGraph& g, const EmulateOptions& o, std::ostream& log) {
  std::string why;
  if (cuda_device_count(&why) == 0)
    throw std::runtime_error("no CUDA device found (" + why +
                             "); run this on a machine with an NVIDIA GPU, or use `hcpsim simulate` for a prediction");
  log << describe_cuda_devices() << g.world_size << " ranks, " << g.size() << " tasks, emulated on GPU 0\n";
  Trace t = run_emulated(g, o, [&](std::size_t done, std::size_t total) {
    if (done == total || done % 16 == 0) log << "\rmeasured " << done << "/" << total << " task shapes" << std::flush;
  });
  log << '\n';
  return t;
}

}  // namespace hcpsim::kernels
