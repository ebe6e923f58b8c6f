#include "kernels/distributed_run.h"

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/task_timer.h"

namespace hcpsim::kernels {
namespace {

using Clock = std::chrono::steady_clock;

struct RankError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : fallback;
}

// Nonblocking communicators: every NCCL call may return ncclInProgress; wait for completion of the
// call (not of the GPU work) with a deadline so that a peer that never arrives cannot hang us.
void nccl_wait(ncclComm_t comm, ncclResult_t r, const std::string& what, int rank, Clock::time_point deadline) {
  if (r != ncclSuccess && r != ncclInProgress) {
    throw RankError("rank " + std::to_string(rank) + ": " + what + ": NCCL: " + ncclGetErrorString(r));
  }
  ncclResult_t state = r;
  while (state == ncclInProgress) {
    if (Clock::now() > deadline) throw RankError("rank " + std::to_string(rank) + ": " + what + ": timed out");
    std::this_thread::yield();
    ncclCommGetAsyncError(comm, &state);
  }
  if (state != ncclSuccess) {
    throw RankError("rank " + std::to_string(rank) + ": " + what + ": NCCL: " + ncclGetErrorString(state));
  }
}

ncclConfig_t nonblocking_config() {
  ncclConfig_t c = NCCL_CONFIG_INITIALIZER;
  c.blocking = 0;
  return c;
}

struct Comms {
  int rank = 0;
  ncclComm_t world = nullptr;
  std::map<int, ncclComm_t> by_kind;   // GroupKind -> this rank's communicator of that kind
  void abort_all() {
    for (auto& [k, c] : by_kind) if (c) ncclCommAbort(c);
    if (world) ncclCommAbort(world);
    by_kind.clear();
    world = nullptr;
  }
  ~Comms() {
    for (auto& [k, c] : by_kind) if (c) ncclCommDestroy(c);
    if (world) ncclCommDestroy(world);
  }
};

}  // namespace

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("SLURM_NTASKS");
}

void abort_all_ranks(int code) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, code);
}

void finalize_mpi() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
}

Trace run_distributed(const TaskGraph& g, const RankLayout& layout, const DistributedOptions& o, std::ostream& log) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string who = "rank " + std::to_string(rank);
  if (size != g.world_size) {
    throw RankError(who + ": the scenario has " + std::to_string(g.world_size) + " ranks but " +
                    std::to_string(size) + " processes were started (mpirun -np " + std::to_string(g.world_size) + ")");
  }
  int devices = 0;
  check_cuda(cudaGetDeviceCount(&devices), (who + ": cudaGetDeviceCount").c_str());
  const int local = env_int("OMPI_COMM_WORLD_LOCAL_RANK", env_int("SLURM_LOCALID", rank % std::max(devices, 1)));
  check_cuda(cudaSetDevice(local % devices), (who + ": cudaSetDevice").c_str());

  const auto setup_deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.timeout_s));
  Comms comms;
  comms.rank = rank;
  try {
    ncclUniqueId unique_id;
    if (rank == 0) {
      const ncclResult_t ur = ncclGetUniqueId(&unique_id);
      if (ur != ncclSuccess) throw RankError(who + ": ncclGetUniqueId: " + ncclGetErrorString(ur));
    }
    MPI_Bcast(&unique_id, sizeof unique_id, MPI_BYTE, 0, MPI_COMM_WORLD);
    ncclConfig_t cfg = nonblocking_config();
    ncclComm_t world = nullptr;
    const ncclResult_t init_r = ncclCommInitRankConfig(&world, size, unique_id, rank, &cfg);
    comms.world = world;
    nccl_wait(world, init_r, "ncclCommInitRankConfig (world)", rank, setup_deadline);
    // One split per group kind used by a collective; every rank is in exactly one group of a kind.
    std::set<int> kinds;
    for (const CommOp& op : g.comms()) {
      if (op.kind != TaskKind::SendRecv) kinds.insert(static_cast<int>(op.group));
    }
    for (int k : kinds) {
      const auto kind = static_cast<GroupKind>(k);
      const auto& members = layout.group_of(kind, rank);
      const int key = static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
      ncclComm_t c = nullptr;
      ncclConfig_t scfg = nonblocking_config();
      const ncclResult_t sr = ncclCommSplit(comms.world, layout.group_index_of(kind, rank), key, &c, &scfg);
      comms.by_kind[k] = c;
      nccl_wait(c ? c : comms.world, sr, std::string("ncclCommSplit (") + to_string(kind) + ")", rank, setup_deadline);
    }

    // Streams, buffers, events.
    std::vector<cudaStream_t> streams(kStreamCount);
    for (auto& s : streams) check_cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
    TaskTimer timer(g, o.seed + static_cast<std::uint64_t>(rank));
    std::size_t comm_bytes = 256;
    for (const Task& t : g.tasks()) {
      if (t.rank == rank && is_communication(t.kind) && t.comm != kNone) {
        const CommOp& op = g.comms()[t.comm];
        double b = t.bytes;
        for (const Transfer& x : op.transfers) b = std::max(b, x.bytes);
        b = std::max(b, op.bytes_per_rank * static_cast<double>(std::max<std::size_t>(op.ranks.size(), 1)));
        comm_bytes = std::max(comm_bytes, static_cast<std::size_t>(std::ceil(b)) + 256);
      }
    }
    void* sendbuf = nullptr;
    void* recvbuf = nullptr;
    check_cuda(cudaMalloc(&sendbuf, comm_bytes), (who + ": cudaMalloc (communication buffers)").c_str());
    check_cuda(cudaMalloc(&recvbuf, comm_bytes), (who + ": cudaMalloc (communication buffers)").c_str());
    check_cuda(cudaMemset(sendbuf, 0, comm_bytes), "cudaMemset");

    std::vector<TaskId> mine;
    for (TaskId id : g.topological_order()) if (g.task(id).rank == rank) mine.push_back(id);
    std::map<TaskId, std::pair<cudaEvent_t, cudaEvent_t>> ev;
    for (TaskId id : mine) {
      cudaEvent_t a, b;
      check_cuda(cudaEventCreate(&a), "cudaEventCreate");
      check_cuda(cudaEventCreate(&b), "cudaEventCreate");
      ev[id] = {a, b};
    }
    cudaEvent_t t0;
    check_cuda(cudaEventCreate(&t0), "cudaEventCreate");

    auto comm_for = [&](const CommOp& op) {
      auto it = comms.by_kind.find(static_cast<int>(op.group));
      return it == comms.by_kind.end() ? comms.world : it->second;
    };
    std::vector<double> start_s(g.size(), 0), end_s(g.size(), 0);
    for (int pass = 0; pass <= o.warmup; ++pass) {
      const bool timed = pass == o.warmup;
      MPI_Barrier(MPI_COMM_WORLD);
      const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.timeout_s));
      check_cuda(cudaEventRecord(t0, streams[0]), "cudaEventRecord");
      for (cudaStream_t s : streams) check_cuda(cudaStreamWaitEvent(s, t0, 0), "cudaStreamWaitEvent");
      for (TaskId id : mine) {
        const Task& t = g.task(id);
        cudaStream_t s = streams[static_cast<int>(t.stream)];
        for (TaskId d : g.deps(id)) {
          const Task& dt = g.task(d);
          if (dt.rank == rank && dt.stream != t.stream) check_cuda(cudaStreamWaitEvent(s, ev[d].second, 0), "cudaStreamWaitEvent");
        }
        const std::string what = who + ": task " + std::to_string(id) + " (" + g.display_name(t) + ")";
        check_cuda(cudaEventRecord(ev[id].first, s), what.c_str());
        if (!is_communication(t.kind)) {
          timer.enqueue(t, s);
        } else {
          if (t.comm == kNone) throw RankError(what + ": communication task without a CommOp");
          const CommOp& op = g.comms()[t.comm];
          ncclComm_t c = op.kind == TaskKind::SendRecv ? comms.world : comm_for(op);
          const int n = static_cast<int>(op.ranks.size());
          nccl_wait(c, ncclGroupStart(), what + ": ncclGroupStart", rank, deadline);
          ncclResult_t r = ncclSuccess;
          switch (op.kind) {
            case TaskKind::SendRecv:
              for (const Transfer& x : op.transfers) {
                const auto b = static_cast<std::size_t>(x.bytes);
                if (x.src == rank && x.dst != rank && r == ncclSuccess) r = ncclSend(sendbuf, b, ncclChar, x.dst, c, s);
                if (x.dst == rank && x.src != rank && r == ncclSuccess) r = ncclRecv(recvbuf, b, ncclChar, x.src, c, s);
              }
              break;
            case TaskKind::AllToAll: {
              const auto piece = static_cast<std::size_t>(op.bytes_per_rank / n);
              for (int j = 0; j < n && r == ncclSuccess; ++j) {
                r = ncclSend(static_cast<char*>(sendbuf) + j * piece, piece, ncclChar, j, c, s);
                if (r == ncclSuccess) r = ncclRecv(static_cast<char*>(recvbuf) + j * piece, piece, ncclChar, j, c, s);
              }
              break;
            }
            case TaskKind::AllGather:
              r = ncclAllGather(sendbuf, recvbuf, static_cast<std::size_t>(op.bytes_per_rank), ncclChar, c, s);
              break;
            case TaskKind::ReduceScatter:
              r = ncclReduceScatter(sendbuf, recvbuf, static_cast<std::size_t>(op.bytes_per_rank / 2), ncclBfloat16, ncclSum, c, s);
              break;
            case TaskKind::AllReduce:
              r = ncclAllReduce(sendbuf, recvbuf, static_cast<std::size_t>(op.bytes_per_rank / 2), ncclBfloat16, ncclSum, c, s);
              break;
            default:
              throw RankError(what + ": unsupported communication kind " + to_string(op.kind));
          }
          nccl_wait(c, r, what, rank, deadline);
          nccl_wait(c, ncclGroupEnd(), what + ": ncclGroupEnd", rank, deadline);
        }
        check_cuda(cudaEventRecord(ev[id].second, s), what.c_str());
      }
      // Wait for everything with a deadline, watching NCCL's asynchronous errors.
      for (TaskId id : mine) {
        for (;;) {
          const cudaError_t q = cudaEventQuery(ev[id].second);
          if (q == cudaSuccess) break;
          const std::string what = who + ": task " + std::to_string(id) + " (" + g.display_name(g.task(id)) + ")";
          if (q != cudaErrorNotReady) check_cuda(q, what.c_str());
          ncclResult_t ae = ncclSuccess;
          if (comms.world) ncclCommGetAsyncError(comms.world, &ae);
          for (auto& [k, c] : comms.by_kind) {
            ncclResult_t e2 = ncclSuccess;
            ncclCommGetAsyncError(c, &e2);
            if (ae == ncclSuccess || ae == ncclInProgress) ae = e2;
          }
          if (ae != ncclSuccess && ae != ncclInProgress) {
            throw RankError(what + " did not finish: NCCL asynchronous error: " + ncclGetErrorString(ae));
          }
          if (Clock::now() > deadline) {
            throw RankError(what + " did not finish within " + std::to_string(o.timeout_s) + " s");
          }
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
      }
      if (timed) {
        for (TaskId id : mine) {
          float a = 0, b = 0;
          check_cuda(cudaEventElapsedTime(&a, t0, ev[id].first), "cudaEventElapsedTime");
          check_cuda(cudaEventElapsedTime(&b, t0, ev[id].second), "cudaEventElapsedTime");
          start_s[id] = a * 1e-3;
          end_s[id] = b * 1e-3;
        }
      }
    }
    for (auto& [id, p] : ev) { cudaEventDestroy(p.first); cudaEventDestroy(p.second); }
    cudaEventDestroy(t0);
    cudaFree(sendbuf);
    cudaFree(recvbuf);
    for (auto s : streams) cudaStreamDestroy(s);

    // Gather (task, start, end) triples on rank 0.
    std::vector<double> local_rows;
    for (TaskId id : mine) {
      local_rows.push_back(static_cast<double>(id));
      local_rows.push_back(start_s[id]);
      local_rows.push_back(end_s[id]);
    }
    int count = static_cast<int>(local_rows.size());
    std::vector<int> counts(size), displs(size);
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<double> all;
    if (rank == 0) {
      int total = 0;
      for (int i = 0; i < size; ++i) { displs[i] = total; total += counts[i]; }
      all.resize(static_cast<std::size_t>(total));
    }
    MPI_Gatherv(local_rows.data(), count, MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    Trace tr;
    if (rank == 0) {
      tr.scenario = g.scenario_name;
      tr.backend = "cuda";
      tr.world_size = g.world_size;
      tr.gpus_per_node = o.gpus_per_node;
      for (std::size_t i = 0; i + 2 < all.size(); i += 3) {
        const auto id = static_cast<TaskId>(all[i]);
        tr.events.push_back(make_event(g, g.task(id), all[i + 1], all[i + 2]));
      }
      log << "measured " << tr.events.size() << " tasks on " << size << " GPUs\n";
    }
    return tr;
  } catch (...) {
    comms.abort_all();
    throw;
  }
}

}  // namespace hcpsim::kernels
