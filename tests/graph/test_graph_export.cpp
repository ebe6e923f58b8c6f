// JSON / DOT / text writers of a TaskGraph.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "engine/graph/graph_export.h"
#include "engine/schedule/graph_text.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

TEST(GraphExport, JsonFollowsTheContract) {
  testing::Config k;
  k.cp = 4;
  k.hcp = {2, 2};
  k.types = {CpCommType::A2AP2P};
  const Scenario s = testing::make_scenario(k);
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), GraphOptions{});
  std::ostringstream os;
  write_graph_json(g, GraphFilter{}, os);
  const auto j = nlohmann::json::parse(os.str());
  ASSERT_EQ(j.at("tasks").size(), g.size());
  const std::set<std::string> kinds = {"attention_forward", "attention_backward", "copy", "lse_merge", "out_correction",
                                       "send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce", "gemm"};
  for (const auto& t : j.at("tasks")) {
    for (const char* key : {"id", "rank", "stream", "kind", "name", "layer", "pass", "step", "flops", "bytes", "peers", "deps"})
      EXPECT_TRUE(t.contains(key)) << key;
    EXPECT_TRUE(kinds.count(t.at("kind").get<std::string>()));
    const auto id = t.at("id").get<TaskId>();
    EXPECT_EQ(t.at("deps").size(), g.in_degree(id));
    if (t.at("kind") == "send_recv") {
      EXPECT_EQ(t.at("peers").size(), 2u);
    }
    if (t.at("kind") == "all_to_all") {
      EXPECT_EQ(t.at("peers").size(), 1u);   // A = 2
    }
  }
  std::ostringstream one;
  GraphFilter f;
  f.rank = 1;
  f.pass = Pass::Backward;
  write_graph_json(g, f, one);
  for (const auto& t : nlohmann::json::parse(one.str()).at("tasks")) {
    EXPECT_EQ(t.at("rank"), 1);
    EXPECT_EQ(t.at("pass"), "backward");
  }
}

TEST(GraphExport, DotAndTextTeachTheRing) {
  testing::Config k;
  k.cp = 4;
  k.hcp = {2, 2};
  k.types = {CpCommType::A2AP2P};
  k.seq = 8192;
  const Scenario s = testing::make_scenario(k);
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), GraphOptions{});
  std::ostringstream dot, text;
  GraphFilter f;
  f.rank = 0;
  write_graph_dot(g, f, dot);
  EXPECT_NE(dot.str().find("subgraph cluster_rank0"), std::string::npos);
  EXPECT_EQ(dot.str().find("cluster_rank1"), std::string::npos);
  f.pass = Pass::Forward;
  write_graph_text(g, s, f, text);
  // Worked example (docs/schedules.md): rank 0 is ring rank 0 holding C0 C1 | C6 C7; step 1 uses ring rank 1's KV
  EXPECT_NE(text.str().find("KV of ring rank 0 = C0 C1 | C6 C7"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("KV of ring rank 1 = C2 C3 | C4 C5"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("to rank 2, receive from rank 2"), std::string::npos) << text.str();
  EXPECT_EQ(ring_chunks(1, 1, 4), "C1 | C6");
}

}  // namespace
}  // namespace hcpsim
