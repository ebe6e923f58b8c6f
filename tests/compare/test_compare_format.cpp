// JSON and text output of a comparison.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/compare/compare_format.h"
#include "synthetic_traces.h"

namespace hcpsim {
namespace {

CompareResult sample() {
  Trace p, m;
  test::add_pair(p, m, 0, 0, TaskKind::AttentionForward, Pass::Forward, 0, 2e-3, 0.2);
  test::add_pair(p, m, 1, 1, TaskKind::AttentionForward, Pass::Forward, 0, 2e-3, -0.4);
  test::add_pair(p, m, 2, 1, TaskKind::SendRecv, Pass::Backward, 3e-3, 1e-3, 0.1);
  p.events.push_back(test::event(3, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  return compare_traces(p, m);
}

TEST(CompareFormat, JsonHasByKindWithTheContractFields) {
  auto j = nlohmann::json::parse(compare_to_json(sample()));
  const auto& a = j.at("by_kind").at("attention_forward");
  EXPECT_EQ(a.at("count").get<int>(), 2);
  EXPECT_NEAR(a.at("mean_rel_error").get<double>(), -0.1, 1e-9);
  EXPECT_NEAR(a.at("max_rel_error").get<double>(), -0.4, 1e-9);
  EXPECT_NEAR(j.at("by_pass").at("backward").at("mean_rel_error").get<double>(), 0.1, 1e-9);
  EXPECT_EQ(j.at("by_rank").at("1").at("count").get<int>(), 2);
  EXPECT_EQ(j.at("worst").at(0).at("task").get<int>(), 1);
  EXPECT_EQ(j.at("worst").at(0).at("kind").get<std::string>(), "attention_forward");
  EXPECT_EQ(j.at("missing_in_measured"), nlohmann::json::array({3}));
  EXPECT_FALSE(j.at("clean").get<bool>());
}

TEST(CompareFormat, TextNamesGroupsAndMissingTasks) {
  std::ostringstream os;
  write_compare_text(sample(), os);
  const std::string s = os.str();
  EXPECT_NE(s.find("attention_forward"), std::string::npos);
  EXPECT_NE(s.find("-40.0%"), std::string::npos);
  EXPECT_NE(s.find("Tasks only in the predicted trace (1): 3"), std::string::npos);
}

TEST(CompareFormat, LongIdListsAreTruncatedWithACount) {
  Trace p, m;
  for (TaskId i = 0; i < 30; ++i) p.events.push_back(test::event(i, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  std::ostringstream os;
  write_compare_text(compare_traces(p, m), os, 5);
  EXPECT_NE(os.str().find("(25 more)"), std::string::npos);
}

}  // namespace
}  // namespace hcpsim
