// The SimGrid backend's costs (sim/backend_costs.h) answer exactly what the cost model answers for
// the same task or flow, in any order of questions, although they remember their last answers.
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/cost/route.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "sim/backend_costs.h"

namespace hcpsim::sim::testing {
namespace {

// Asks the backend's p2p_efficiency for every send/recv transfer of the scenario's graph, op by op
// and then in another order with other sizes, against the cost model; notes the link classes seen.
void check_p2p_efficiencies(const char* file, bool& inter, bool& intra) {
  SCOPED_TRACE(file);
  const Scenario s = load_scenario_file((std::filesystem::path(HCPSIM_SOURCE_DIR) / "scenarios" / file).string());
  ASSERT_TRUE(s.cluster.efficiency.terms.nccl_p2p_channels);
  const RankLayout layout = RankLayout::from_scenario(s);
  const CostModel cost(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  const RunContext ctx{s, layout, cost, {}};
  const PlanCosts c = backend_plan_costs(ctx, g);
  ASSERT_TRUE(c.p2p_efficiency);
  const RouteModel routes(s, cost);
  struct Ask {
    const CommOp* op;
    Transfer tr;
  };
  std::vector<Ask> asks;
  for (const CommOp& op : g.comms())
    if (op.kind == TaskKind::SendRecv)
      for (const Transfer& tr : op.transfers)
        if (tr.src != tr.dst && tr.bytes > 0) asks.push_back({&op, tr});
  ASSERT_GT(asks.size(), 16u);
  auto expected = [&](const Ask& a, double bytes) {
    const Route r = routes.route(a.tr.src, a.tr.dst);
    (r.link_class == LinkClass::InterNode ? inter : intra) = true;
    return cost.p2p_efficiency(bytes, r.link_class, r.bottleneck_Bps, routes.p2p_comm(*a.op));
  };
  for (const Ask& a : asks) EXPECT_EQ(c.p2p_efficiency(*a.op, a.tr.src, a.tr.dst, a.tr.bytes), expected(a, a.tr.bytes));
  for (std::size_t i = 0; i < asks.size(); ++i) {
    const Ask& a = asks[(i * 7919) % asks.size()];   // another order
    const double bytes = (i % 3 == 0) ? a.tr.bytes / 64 : a.tr.bytes;
    EXPECT_EQ(c.p2p_efficiency(*a.op, a.tr.src, a.tr.dst, bytes), expected(a, bytes)) << i;
  }
}

TEST(BackendCosts, EfficienciesEqualTheCostModelsInAnyOrderOfQuestions) {
  // a2a+p2p [4,4] on four DGX H100 nodes (the ring across nodes) and a p2p ring inside one node.
  bool inter = false, intra = false;
  check_p2p_efficiencies("llama3-70b-128k-dgx-h100-hcp.yaml", inter, intra);
  check_p2p_efficiencies("llama3-8b-64k-dgx-h100-p2p.yaml", inter, intra);
  EXPECT_TRUE(inter && intra);

  const Scenario s = load_scenario_file(
      (std::filesystem::path(HCPSIM_SOURCE_DIR) / "scenarios" / "llama3-70b-128k-dgx-h100-hcp.yaml").string());
  const RankLayout layout = RankLayout::from_scenario(s);
  const CostModel cost(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  const RunContext ctx{s, layout, cost, {}};
  const PlanCosts c = backend_plan_costs(ctx, g);
  // Link efficiencies: every kind, size and link class, repeated and alternated.
  const TaskKind kinds[] = {TaskKind::SendRecv, TaskKind::AllToAll, TaskKind::AllGather, TaskKind::AllReduce};
  const double sizes[] = {1e3, 1e3, 4e6, 2.5e8, 4e6};
  for (int round = 0; round < 2; ++round)
    for (TaskKind k : kinds)
      for (double bytes : sizes)
        for (bool in : {false, true, true, false})
          EXPECT_EQ(c.link_efficiency(k, bytes, in),
                    cost.link_efficiency(k, bytes, in ? LinkClass::InterNode : LinkClass::IntraNode));
}

}  // namespace
}  // namespace hcpsim::sim::testing
