#include "kernels/distributed_run.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <stdexcept>
#include <string>

#include "kernels/call_plan.h"
#include "kernels/cuda_check.h"
#include "kernels/cuda_device.h"
#include "kernels/device.h"
#include "kernels/nccl_comm.h"
#include "kernels/nccl_loader.h"
#include "kernels/rank_schedule.h"

namespace hcpsim::kernels {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

}  // namespace

int select_local_gpu(int devices, int world_rank) {
  if (devices < 1) throw std::runtime_error("no CUDA device to select");
  if (world_rank < 0) world_rank = env_int("OMPI_COMM_WORLD_RANK", env_int("PMIX_RANK", 0));
  const int local = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("SLURM_LOCALID", world_rank)) % devices;
  check_cuda(cudaSetDevice(local), ("rank " + std::to_string(world_rank) + ": cudaSetDevice").c_str());
  return local;
}

Trace run_distributed(const TaskGraph& g, const RankLayout& layout, const DistributedOptions& o, std::ostream& log) {
  const MpiWorld w = init_mpi();
  const std::string who = "rank " + std::to_string(w.rank);
  if (w.size != g.world_size)
    throw std::runtime_error(who + ": the scenario has " + std::to_string(g.world_size) + " ranks but " +
                             std::to_string(w.size) + " processes were started (mpirun -np " +
                             std::to_string(g.world_size) + ")");
  int devices = 0;
  check_cuda(cudaGetDeviceCount(&devices), (who + ": cudaGetDeviceCount").c_str());
  select_local_gpu(devices, w.rank);

  if (w.rank == 0) log << nccl_library_description() << '\n';
  NcclComm comm(o.timeout_s);
  try {
    comm.open_groups(layout, collective_group_kinds(g));
    CudaDevice device(g, w.rank, o.seed);
    RankRunOptions ro;
    ro.warmup = o.warmup;
    ro.timeout_s = o.timeout_s;
    const RankTimes times = run_rank_schedule(g, w.rank, comm, device, ro);
    Trace tr = gather_trace(g, w.rank, comm, times, device.name(), o.gpus_per_node);
    if (w.rank == 0) log << "measured " << tr.events.size() << " tasks on " << w.size << " GPUs\n";
    return tr;
  } catch (...) {
    comm.abort();
    throw;
  }
}

Trace run_graph_on_gpus(const Scenario& s, const TaskGraph& g, const RankLayout& layout, const GpuRunOptions& o,
                        std::ostream& log) {
  std::string why;
  if (cuda_device_count(&why) == 0)
    throw std::runtime_error("no CUDA device found (" + why +
                             "); run this on a machine with an NVIDIA GPU, `mpirun -np N hcpsim run FILE --device cpu` "
                             "on CPU processes, or `hcpsim simulate` for a prediction");
  if (!launched_by_mpi() && g.world_size > 1)
    throw std::runtime_error("the scenario has " + std::to_string(g.world_size) +
                             " ranks: start one process per GPU with `mpirun -np " + std::to_string(g.world_size) +
                             " hcpsim run FILE`, or use --emulate-ranks on one GPU");
  const auto problems = check_call_plan(g, layout, build_call_plan(g));
  if (!problems.empty()) throw std::runtime_error("the call plan would hang: " + problems.front());
  DistributedOptions d;
  d.warmup = o.emulate.warmup;
  d.seed = o.emulate.seed;
  d.timeout_s = o.timeout_s;
  d.gpus_per_node = s.cluster.gpus_per_node;
  return run_distributed(g, layout, d, log);
}

}  // namespace hcpsim::kernels
