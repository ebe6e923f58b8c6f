// The `nccl_ring_latency` and `nccl_protocols` terms in the SimGrid lowering (docs/metrics.md
// sections 9.8 and 9.9): a ring collective as NCCL pipelines it, one flow per hop carrying every
// step's chunk, the members ending NCCL's ring latency after the last flow. Alone it takes what the
// analytic backend predicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "engine/analytic/analytic_backend.h"
#include "engine/layout/rank_layout.h"
#include "sim/simgrid_backend.h"
#include "tests/cost/test_scenario.h"
#include "tests/sim/backend_makespan.h"
#include "tests/sim/sim_test_util.h"

namespace hcpsim::sim::testing {
namespace {

std::vector<int> ranks(int n) {
  std::vector<int> r;
  for (int i = 0; i < n; ++i) r.push_back(i);
  return r;
}

TEST(SimRingPipeline, LoweringMakesOneFlowPerHopWithEveryStepsBytes) {
  TaskGraph g;
  collective(g, TaskKind::AllReduce, {0, 1, 2, 3}, 8e6);
  PlanCosts c = unit_costs(2);
  c.ring_pipeline = [](const CommOp&) { return PlanCosts::RingPipelineCost{{0.5, 0.25, 0.5, 1.0}, 40e-6}; };
  const OpFlows f = lower_comm_op(g, 0, c);
  ASSERT_EQ(f.flows.size(), 4u);   // one per hop, not 6 steps x 4 hops
  EXPECT_EQ(f.initial, 4u);        // all start with the op
  EXPECT_EQ(f.ring_members, 0u);   // no step gating
  EXPECT_DOUBLE_EQ(f.tail_s, 40e-6);
  // 6 steps of 2 MB = 12 MB per hop, at the hop's efficiency.
  EXPECT_DOUBLE_EQ(f.flows[0].wire_bytes, 12e6 / 0.5);
  EXPECT_DOUBLE_EQ(f.flows[1].wire_bytes, 12e6 / 0.25);
  EXPECT_DOUBLE_EQ(f.flows[3].wire_bytes, 12e6);
  std::uint32_t next[2];
  EXPECT_EQ(f.ring_next(0, next), 0u);
  // Rails still divide a hop's wire bytes.
  c.ring_rail_speedups = [](const CommOp&) { return std::vector<double>{1, 4, 1, 1}; };
  EXPECT_DOUBLE_EQ(lower_comm_op(g, 0, c).flows[1].wire_bytes, 12e6 / 0.25 / 4);
  c.ring_pipeline = [](const CommOp&) { return PlanCosts::RingPipelineCost{{0.5, 0.5}, 0}; };
  EXPECT_THROW(lower_comm_op(g, 0, c), std::invalid_argument);
  c.ring_pipeline = [](const CommOp&) { return PlanCosts::RingPipelineCost{{0.5, 0.5, 0.5, 0.5}, -1}; };
  EXPECT_THROW(lower_comm_op(g, 0, c), std::invalid_argument);
}

TEST(SimRingPipeline, MembersEndTheRingLatencyAfterTheLastFlow) {
  TaskGraph g;
  const auto members = collective(g, TaskKind::AllGather, {0, 1}, 1e6);
  PlanCosts c = unit_costs(2);
  const Result plain = simulate(g, cluster(1, 2, 2), c);
  c.ring_pipeline = [](const CommOp&) { return PlanCosts::RingPipelineCost{{1.0, 1.0}, 30e-6}; };
  const Result piped = simulate(g, cluster(1, 2, 2), c);
  // Two members, one step: the same flow, then 30 us.
  for (const TaskId m : members) EXPECT_NEAR(piped.end_s[m] - plain.end_s[m], 30e-6, 1e-9);
}

TEST(SimRingPipeline, AgreesWithAnalyticAcrossNodesAndOnOneNode) {
  BackendRegistry reg;
  register_simgrid_backend(reg);
  auto sg = reg.create("simgrid");
  AnalyticBackend an;
  struct Case {
    int nodes, gpus, nics;
    TaskKind op;
    double bytes;
  };
  for (const Case& k : {Case{2, 8, 4, TaskKind::AllReduce, 32.0 * (1 << 20)}, Case{2, 8, 8, TaskKind::AllGather, 4e6},
                        Case{1, 8, 8, TaskKind::AllReduce, 1 << 20}, Case{1, 8, 8, TaskKind::ReduceScatter, 64e6}}) {
    Scenario s = test::dgx_scenario(k.nodes, k.gpus);
    s.cluster.nics_per_node = k.nics;
    s.cluster.efficiency.terms.nccl_ring_latency = true;
    s.cluster.efficiency.terms.nccl_protocols = true;
    s.cluster.efficiency.terms.nccl_rails = true;
    TaskGraph g;
    collective(g, k.op, ranks(k.nodes * k.gpus), k.bytes);
    const double a = makespan(an, g, s), b = makespan(*sg, g, s);
    ASSERT_GT(a, 0);
    EXPECT_NEAR(b / a, 1.0, 1e-3) << to_string(k.op) << " on " << k.nodes << " nodes: analytic " << a << " simgrid " << b;
    // The pipelined ring is faster than the step-by-step one (which pays a route latency per step).
    Scenario off = s;
    off.cluster.efficiency.terms.nccl_ring_latency = false;
    off.cluster.efficiency.terms.nccl_protocols = false;
    EXPECT_NE(makespan(*sg, g, off), b);
  }
}

}  // namespace
}  // namespace hcpsim::sim::testing
