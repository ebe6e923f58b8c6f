// TaskCostMemo gives, for every task of every example scenario's graph, exactly (bit for bit) what
// the CostModel gives, on the first question and on the remembered ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/cost/task_cost_memo.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "engine/step/step_model.h"
#include "tests/support/example_scenarios.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> scenario_files() { return test::example_scenario_files(); }

TEST(TaskCostMemo, EqualsTheCostModelOnEveryExampleTask) {
  const auto files = scenario_files();
  ASSERT_FALSE(files.empty());
  std::size_t attention = 0, collectives = 0, send_recv_intra = 0, send_recv_inter = 0, loaded = 0;
  for (const auto& file : files) {
    // The layer graph simulate_scenario runs (one model-parallel group), as in the golden reports.
    const Scenario s = step::model_parallel_slice(load_scenario_file(file));
    const RankLayout layout = RankLayout::from_scenario(s);
    const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
    const CostModel cost(s);
    TaskCostMemo memo(cost, g);
    for (int round = 0; round < 2; ++round)   // the second round is answered from the memo
      for (const Task& t : g.tasks()) {
        if (is_communication(t.kind)) {
          const double want = cost.comm_compute_load(g, t);
          ASSERT_EQ(memo.comm_compute_load(t), want) << file << " task " << g.id_of(t) << " " << g.display_name(t);
          if (round == 0 && want > 0 && t.kind != TaskKind::SendRecv) ++collectives;
          if (round == 0 && want > 0 && t.kind == TaskKind::SendRecv)
            ++(cost.link_class_of(g, t) == LinkClass::InterNode ? send_recv_inter : send_recv_intra);
        } else {
          ASSERT_EQ(memo.compute_seconds(t), cost.compute_seconds(g, t)) << file << " task " << g.id_of(t) << " "
                                                                        << g.display_name(t);
          if (round == 0 && t.attention != kNone) ++attention;
        }
      }
    ++loaded;
  }
  EXPECT_EQ(loaded, files.size());
  // The examples exercise every remembered path.
  EXPECT_GT(attention, 0u);
  EXPECT_GT(collectives, 0u);
  EXPECT_GT(send_recv_intra, 0u);
  EXPECT_GT(send_recv_inter, 0u);
}

}  // namespace
}  // namespace hcpsim
