#include "kernels/cpu_run.h"

#include <cstring>
#include <ostream>
#include <stdexcept>
#include <string>

#include "kernels/call_plan.h"
#include "kernels/cpu_device.h"
#include "kernels/mpi_comm.h"
#include "kernels/rank_schedule.h"
#include "kernels/run_check.h"

namespace hcpsim::kernels {

namespace {

using reference::RankLayerResult;
using reference::Tensor;

void put_tensor(std::vector<char>& out, const Tensor<double>& t) {
  const std::int64_t shape[4] = {t.B, t.L, t.H, t.D};
  const auto* s = reinterpret_cast<const char*>(shape);
  out.insert(out.end(), s, s + sizeof shape);
  const auto* v = reinterpret_cast<const char*>(t.v.data());
  out.insert(out.end(), v, v + t.v.size() * sizeof(double));
}

Tensor<double> take_tensor(const std::vector<char>& in, std::size_t& pos) {
  std::int64_t shape[4];
  if (pos + sizeof shape > in.size()) throw std::runtime_error("check: truncated results from a rank");
  std::memcpy(shape, in.data() + pos, sizeof shape);
  pos += sizeof shape;
  Tensor<double> t(shape[0], shape[1], shape[2], shape[3]);
  const std::size_t bytes = t.v.size() * sizeof(double);
  if (pos + bytes > in.size()) throw std::runtime_error("check: truncated results from a rank");
  if (bytes) std::memcpy(t.v.data(), in.data() + pos, bytes);
  pos += bytes;
  return t;
}

}  // namespace

CpuRunResult run_graph_on_cpus(const Scenario& s, const TaskGraph& g, const RankLayout& layout, const CpuRunOptions& o,
                               std::ostream& log) {
  if (!launched_by_mpi() && layout.world_size() > 1)
    throw std::runtime_error("the scenario has " + std::to_string(layout.world_size()) +
                             " ranks: start one process per rank with `mpirun -np " +
                             std::to_string(layout.world_size()) + " hcpsim run FILE ...` (same options)" +
                             (o.tiles ? ", or check on one GPU with --emulate-ranks --check" : ""));
  const MpiWorld w = init_mpi();
  const std::string who = "rank " + std::to_string(w.rank);
  if (w.size != layout.world_size())
    throw std::runtime_error(who + ": the scenario has " + std::to_string(layout.world_size()) + " ranks but " +
                             std::to_string(w.size) + " processes were started (mpirun -np " +
                             std::to_string(layout.world_size()) + ")");
  const auto problems = check_call_plan(g, layout, build_call_plan(g));
  if (!problems.empty()) throw std::runtime_error(who + ": the call plan would hang: " + problems.front());
  MpiComm comm;
  comm.open_groups(layout, collective_group_kinds(g));
  CpuDevice device(g, s, layout, w.rank, o.seed, o.tiles);
  if (w.rank == 0)
    log << w.size << " CPU processes, " << g.size() << " tasks, " << g.comms().size() << " communicator calls\n";
  RankRunOptions ro;
  ro.warmup = o.warmup;
  ro.timeout_s = o.timeout_s;
  const RankTimes times = run_rank_schedule(g, w.rank, comm, device, ro);

  CpuRunResult r;
  r.trace = gather_trace(g, w.rank, comm, times, device.name(), s.cluster.gpus_per_node);
  r.reporting_rank = w.rank == 0;
  if (r.reporting_rank) {
    r.trace.scenario = s.display_name();
    r.trace.configuration = s.configuration();
  }
  if (o.check) {
    std::vector<char> mine;
    for (const auto& [layer, res] : device.results()) {
      for (const Tensor<double>* t : {&res.out, &res.dq, &res.dk, &res.dv}) put_tensor(mine, *t);
    }
    const auto all = comm.gather_to_root(mine);
    if (w.rank == 0) {
      std::vector<std::map<int, RankLayerResult>> results(all.size());
      for (std::size_t rank = 0; rank < all.size(); ++rank) {
        std::size_t pos = 0;
        for (int l = 0; l < g.layers; ++l) {
          RankLayerResult x;
          x.out = take_tensor(all[rank], pos);
          x.dq = take_tensor(all[rank], pos);
          x.dk = take_tensor(all[rank], pos);
          x.dv = take_tensor(all[rank], pos);
          results[rank][l] = std::move(x);
        }
      }
      auto v = reference::compare_with_dense(s, layout, g.layers, o.seed, o.tolerance, results);
      v.tasks = g.size();
      r.check = v;
    }
  }
  return r;
}

}  // namespace hcpsim::kernels
