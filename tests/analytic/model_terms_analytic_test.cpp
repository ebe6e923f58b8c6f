// The cost-model terms that act in the backend's event loop (docs/metrics.md section 9): NCCL
// kernels slowing concurrent compute (processor-sharing share), and host overheads ending
// communication tasks later. Closed forms on hand-built graphs.
#include <gtest/gtest.h>

#include "engine/analytic/processor_sharing_gpu.h"
#include "engine/cost/route.h"
#include "tests/analytic/run_helpers.h"
#include "tests/cost/test_scenario.h"
#include "tests/support/two_rank_sendrecv.h"

namespace hcpsim {
namespace {

TaskId copy_task(TaskGraph& g, int rank, double bytes) {
  Task t;
  t.rank = rank;
  t.kind = TaskKind::Copy;
  t.bytes = bytes;
  return g.add_task(t, "copy");
}

TEST(ProcessorSharingGpu, CommLoadSlowsKernelsByItsShare) {
  ProcessorSharingGpu gpu;
  gpu.start(0.0, 10.0, 0);
  gpu.set_comm_load(2.0, 0.25);                 // from t=2, the kernel runs at 0.75
  EXPECT_NEAR(gpu.next_end_s(2.0), 2.0 + 8.0 / 0.75, 1e-12);
  gpu.set_comm_load(4.0, 0.0);                  // t=4: 8 - 1.5 left at full speed
  EXPECT_NEAR(gpu.next_end_s(4.0), 4.0 + 6.5, 1e-12);
  gpu.set_comm_load(5.0, 3.0);                  // overload: compute keeps kMinShare
  EXPECT_NEAR(gpu.compute_share(), ProcessorSharingGpu::kMinShare, 0);
}

TEST(ModelTermsAnalytic, SendRecvSlowsConcurrentComputeOnBothRanks) {
  Scenario s = test::dgx_scenario(1, 2);
  s.cluster.efficiency.terms.comm_compute_interference = true;
  const CostModel cost(s);
  TaskGraph g;
  const double hbm = 8e9;                       // a long copy on rank 0 (about 3 ms)
  const TaskId work = copy_task(g, 0, hbm);
  const auto sr = test::add_two_rank_sendrecv(g, 1, 64.0 * 1024 * 1024, 0);
  const auto r = test::run_analytic(g, s);
  const double w = cost.compute_seconds(g, g.task(work));
  const double d = RouteModel(s, cost).transfer_seconds(0, 1, 64.0 * 1024 * 1024);
  const double load = cost.comm_compute_load(g, g.task(sr[0]));
  ASSERT_GT(load, 0.0);
  ASSERT_LT((1 - load) * d, w);                 // the copy outlasts the transfer
  EXPECT_NEAR(r.by_task[sr[0]].end_s, d, 1e-15);   // communication itself is not slowed
  // During [0, d] the copy progresses at 1 - load, then at full speed.
  EXPECT_NEAR(r.by_task[work].end_s, d + (w - (1 - load) * d), 1e-12);
  // Off: the copy takes its own time.
  s.cluster.efficiency.terms.comm_compute_interference = false;
  EXPECT_NEAR(test::run_analytic(g, s).by_task[work].end_s, w, 1e-15);
}

// One send/recv call of a ring over ranks 0..n-1: each sends `bytes` to the next. Returns the tasks.
std::vector<TaskId> add_ring_sendrecv(TaskGraph& g, int n, double bytes) {
  CommOp op;
  op.kind = TaskKind::SendRecv;
  for (int r = 0; r < n; ++r) {
    Task t;
    t.rank = r;
    t.kind = TaskKind::SendRecv;
    t.stream = Stream::NcclP2P;
    t.bytes = bytes;
    t.comm = static_cast<std::uint32_t>(g.comms().size());
    op.ranks.push_back(r);
    op.tasks.push_back(g.add_task(t, "sr"));
    op.transfers.push_back({r, (r + 1) % n, bytes});
  }
  const std::vector<TaskId> tasks = op.tasks;
  g.add_comm(std::move(op));
  return tasks;
}

TEST(ModelTermsAnalytic, P2pChannelsCapTheRingOfEightOnOneA100Node) {
  // docs/metrics.md 9.10: 8 ranks of one A100 node send 256 MiB on 16 channels of 12 GB/s each,
  // 192 GB/s, below the 0.82 x 300 GB/s link level; a pair alone sends 1 GiB on 32 channels and
  // reaches the link level.
  Scenario s = test::dgx_scenario(1, 8);
  s.cluster.gpu.name = "a100-sxm-80gb";
  s.cluster.intra_node_bandwidth_Bps = 300e9;
  s.cluster.efficiency.terms.nccl_p2p_channels = true;
  const double m = 256.0 * 1024 * 1024;
  const double bend = m / (m + 1024.0 * 1024);
  TaskGraph ring;
  const auto tasks = add_ring_sendrecv(ring, 8, m);
  EXPECT_NEAR(test::run_analytic(ring, s).by_task[tasks[3]].end_s, 2e-6 + m / (192e9 * bend), 1e-12);
  TaskGraph pair;
  const double gib = 1024.0 * 1024 * 1024;
  const auto two = add_ring_sendrecv(pair, 2, gib);
  EXPECT_NEAR(test::run_analytic(pair, s).by_task[two[0]].end_s, 2e-6 + (gib + 1024.0 * 1024) / (0.82 * 300e9), 1e-12);
  // Off: the ring of eight moves at the link level too.
  s.cluster.efficiency.terms.nccl_p2p_channels = false;
  EXPECT_NEAR(test::run_analytic(ring, s).by_task[tasks[3]].end_s, 2e-6 + m / (0.82 * 300e9 * bend), 1e-12);
}

TEST(ModelTermsAnalytic, HostOverheadsEndCommunicationLater) {
  Scenario s = test::dgx_scenario(1, 2);
  s.cluster.efficiency.terms.host_overheads = true;
  s.cluster.efficiency.nccl_launch_s = 4e-6;
  s.cluster.efficiency.ring_step_sync_s = 11e-6;
  const CostModel cost(s);
  TaskGraph g;
  const double bytes = 1e6;
  const auto sr = test::add_two_rank_sendrecv(g, 1, bytes, 0);
  const TaskId after = copy_task(g, 0, 1e6);    // the next step's kernel waits for the send/recv
  g.add_dep(sr[0], after);
  const auto r = test::run_analytic(g, s);
  const double d = RouteModel(s, cost).transfer_seconds(0, 1, bytes);
  EXPECT_NEAR(r.by_task[sr[0]].end_s, d + 15e-6, 1e-15);
  EXPECT_NEAR(r.by_task[sr[1]].end_s, d + 15e-6, 1e-15);
  EXPECT_NEAR(r.by_task[after].end_s, d + 15e-6 + cost.compute_seconds(g, g.task(after)), 1e-14);
  s.cluster.efficiency.terms.host_overheads = false;
  EXPECT_NEAR(test::run_analytic(g, s).by_task[sr[0]].end_s, d, 1e-15);
}

}  // namespace
}  // namespace hcpsim
