// Rails of NCCL's inter-node traffic; sources and formulas in docs/metrics.md section 9.7.
#include "engine/cost/nccl_rails.h"

#include <algorithm>

namespace hcpsim {

std::vector<int> local_nics(int gpu, int nics_per_node, int gpus_per_node) {
  const int nics = std::max(1, nics_per_node);
  const int gpus = std::max(1, gpus_per_node);
  const int g = std::max(0, gpu);
  std::vector<int> out{g % nics};
  if (nics >= gpus)
    for (int nic = g % nics + gpus; nic < nics && static_cast<int>(out.size()) < nics / gpus; nic += gpus) out.push_back(nic);
  return out;
}

int ring_rails(int send_side_nics, int receive_side_nics, int channels) {
  return std::max(1, std::min({send_side_nics, receive_side_nics, channels}));
}

}  // namespace hcpsim
