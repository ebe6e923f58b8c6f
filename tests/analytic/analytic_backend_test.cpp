#include "engine/analytic/analytic_backend.h"

#include <gtest/gtest.h>

#include "tests/analytic/run_helpers.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

TaskId copy_task(TaskGraph& g, int rank, Stream st, double bytes) {
  Task t;
  t.rank = rank;
  t.kind = TaskKind::Copy;
  t.stream = st;
  t.bytes = bytes;
  return g.add_task(t, "copy");
}

// A send/recv op between ranks 0 and 1 with `transfers`: returns its tasks (rank 0's, rank 1's).
std::pair<TaskId, TaskId> pair_send_recv(TaskGraph& g, std::vector<Transfer> transfers) {
  CommOp op;
  op.kind = TaskKind::SendRecv;
  op.ranks = {0, 1};
  op.transfers = std::move(transfers);
  const auto oi = g.add_comm(op);
  Task sr;
  sr.kind = TaskKind::SendRecv;
  sr.comm = oi;
  sr.rank = 0;
  const TaskId a = g.add_task(sr, "send");
  sr.rank = 1;
  const TaskId b = g.add_task(sr, "recv");
  g.comm(oi).tasks = {a, b};
  return {a, b};
}

double copy_s(double bytes) { return 2e-6 + bytes / (3.35e12 * 0.80); }

TEST(AnalyticBackend, SingleKernelTakesItsCost) {
  const Scenario s = test::dgx_scenario();
  TaskGraph g;
  copy_task(g, 0, Stream::Main, 1e9);
  const auto r = test::run_analytic(g, s);
  ASSERT_EQ(r.trace.events.size(), 1u);
  EXPECT_NEAR(r.makespan_s, copy_s(1e9), 1e-15);
}

TEST(AnalyticBackend, OverlappingKernelsShareTheGpu) {
  const Scenario s = test::dgx_scenario();
  TaskGraph g;
  const TaskId a = copy_task(g, 0, Stream::Main, 1e9);
  const TaskId b = copy_task(g, 0, Stream::Cp, 3e9);
  const TaskId other = copy_task(g, 1, Stream::Main, 1e9);   // another GPU: not shared
  const auto r = test::run_analytic(g, s);
  const double wa = copy_s(1e9), wb = copy_s(3e9);
  EXPECT_NEAR(r.by_task[a].end_s, 2 * wa, 1e-15);           // both at half rate until a is done
  EXPECT_NEAR(r.by_task[b].end_s, wa + wb, 1e-15);          // then b alone
  EXPECT_NEAR(r.by_task[other].end_s, wa, 1e-15);
}

TEST(AnalyticBackend, LateArrivalSlowsTheRunningKernel) {
  const Scenario s = test::dgx_scenario();
  TaskGraph g;
  const TaskId first = copy_task(g, 0, Stream::Main, 2e9);
  const TaskId pre = copy_task(g, 0, Stream::NcclTp, 0);     // placeholder on another stream
  g.task(pre).kind = TaskKind::Gemm;
  g.task(pre).flops = 0;                                      // costs only the kernel overhead
  const TaskId late = copy_task(g, 0, Stream::Cp, 1e9);
  g.add_dep(pre, late);
  const auto r = test::run_analytic(g, s);
  // pre (2 us) shares with `first` from 0: it ends at 4 us, having let `first` progress 2 us.
  const double w1 = copy_s(2e9), w2 = copy_s(1e9), o = 2e-6;
  const double t_pre = 2 * o;
  EXPECT_NEAR(r.by_task[pre].end_s, t_pre, 1e-15);
  // From t_pre, `first` has w1 - o left and `late` w2, both at half rate; w2 < w1 - o.
  EXPECT_NEAR(r.by_task[late].end_s, t_pre + 2 * w2, 1e-14);
  EXPECT_NEAR(r.by_task[first].end_s, t_pre + 2 * w2 + (w1 - o - w2), 1e-14);
}

TEST(AnalyticBackend, SendRecvStartsWhenBothEndsAreReady) {
  const Scenario s = test::dgx_scenario(2, 1);
  TaskGraph g;
  const TaskId before = copy_task(g, 0, Stream::Main, 1e9);
  Task sr;
  sr.kind = TaskKind::SendRecv;
  sr.stream = Stream::NcclP2P;
  CommOp op;
  op.kind = TaskKind::SendRecv;
  op.ranks = {0, 1};
  const double m = 8e6;
  op.transfers = {{0, 1, m}};
  const auto oi = g.add_comm(op);
  sr.comm = oi;
  sr.rank = 0;
  sr.bytes = m;
  const TaskId send = g.add_task(sr, "send_recv_kv");
  sr.rank = 1;
  sr.bytes = 0;
  const TaskId recv = g.add_task(sr, "send_recv_kv");
  g.comm(oi).tasks = {send, recv};
  g.add_dep(before, send);
  const auto r = test::run_analytic(g, s);
  const double x = 5e-6 + m / (50e9 * 0.94 * m / (m + 256.0 * 1024));
  EXPECT_NEAR(r.by_task[send].start_s, copy_s(1e9), 1e-15);
  EXPECT_NEAR(r.by_task[send].end_s, copy_s(1e9) + x, 1e-14);
  EXPECT_NEAR(r.by_task[recv].start_s, 0.0, 1e-15);   // the receiver waits from time 0
  EXPECT_NEAR(r.by_task[recv].end_s, copy_s(1e9) + x, 1e-14);
  EXPECT_EQ(r.by_task[send].peers, std::vector<std::int32_t>{1});
}

TEST(AnalyticBackend, DeadlockedExchangeIsReportedNotHung) {
  const Scenario s = test::dgx_scenario(1, 2);
  TaskGraph g;
  const auto [a, b] = pair_send_recv(g, {{0, 1, 1e6}});
  const TaskId c = copy_task(g, 1, Stream::Main, 1e6);
  g.add_dep(a, c);   // rank 1 only posts its receive after rank 0's send finished: deadlock
  g.add_dep(c, b);
  try {
    test::run_analytic(g, s);
    FAIL() << "expected a stuck-graph error";
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("3 of 3 tasks never finished"), std::string::npos) << msg;
    EXPECT_NE(msg.find("waits for its communication peers"), std::string::npos) << msg;
  }
}

// A transfer must name members of its op: a rank of the cluster that is not one, a rank beyond the
// graph's ranks and a negative rank are each refused, naming the op and the transfer.
TEST(AnalyticBackend, TransferToARankOutsideItsOpIsRefused) {
  const Scenario s = test::dgx_scenario(1, 4);
  for (const std::int32_t stranger : {2, 3, 9, -1}) {
    TaskGraph g;
    copy_task(g, 2, Stream::Main, 1e6);   // rank 2 exists in the graph, but not in the op
    pair_send_recv(g, {{0, 1, 1e6}, {1, stranger, 1e6}});
    try {
      test::run_analytic(g, s);
      FAIL() << "expected transfer 1 -> " << stranger << " to be refused";
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("comm op 0: transfer 1 -> " + std::to_string(stranger) + " names a rank that is not a member"),
                std::string::npos)
          << msg;
    }
  }
}

// A task on a rank beyond the cluster gets a GPU of its own; a negative rank is refused by name.
TEST(AnalyticBackend, RanksBeyondTheClusterRunAndNegativeRanksAreRefused) {
  const Scenario s = test::dgx_scenario(1, 2);
  TaskGraph g;
  const TaskId far = copy_task(g, 5, Stream::Main, 1e9);
  const TaskId near = copy_task(g, 0, Stream::Main, 1e9);
  const auto r = test::run_analytic(g, s);
  EXPECT_NEAR(r.by_task[far].end_s, copy_s(1e9), 1e-15);   // alone on its GPU, not shared with rank 0
  EXPECT_NEAR(r.by_task[near].end_s, copy_s(1e9), 1e-15);
  copy_task(g, -1, Stream::Main, 1e9);
  try {
    test::run_analytic(g, s);
    FAIL() << "expected a negative rank to be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("has rank -1"), std::string::npos) << e.what();
  }
}

TEST(AnalyticBackend, DeterministicAndOneEventPerTask) {
  const Scenario s = test::dgx_scenario(1, 4);
  TaskGraph g;
  std::vector<TaskId> prev(4, kNone);
  for (int layer = 0; layer < 5; ++layer)
    for (int r = 0; r < 4; ++r) {
      const TaskId t = copy_task(g, r, layer % 2 ? Stream::Cp : Stream::Main, 1e8 * (1 + r + layer));
      if (prev[r] != kNone && layer % 3 != 0) g.add_dep(prev[r], t);
      prev[r] = t;
    }
  const auto a = test::run_analytic(g, s), b = test::run_analytic(g, s);
  ASSERT_EQ(a.trace.events.size(), g.size());
  std::vector<int> seen(g.size(), 0);
  for (std::size_t i = 0; i < a.trace.events.size(); ++i) {
    ++seen.at(a.trace.events[i].task);
    EXPECT_EQ(a.trace.events[i].task, b.trace.events[i].task);
    EXPECT_EQ(a.trace.events[i].end_s, b.trace.events[i].end_s);
  }
  for (const int n : seen) EXPECT_EQ(n, 1);
}

}  // namespace
}  // namespace hcpsim
