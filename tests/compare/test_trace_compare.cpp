// compare_traces on synthetic trace pairs whose per-task errors are chosen by construction.
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/compare/trace_compare.h"
#include "synthetic_traces.h"

namespace hcpsim {
namespace {

using test::add_pair;
using test::event;

TEST(TraceCompare, UniformOverestimateGivesThatErrorEverywhere) {
  Trace p, m;
  for (TaskId i = 0; i < 8; ++i) {
    add_pair(p, m, i, static_cast<int>(i % 4), i < 4 ? TaskKind::AttentionForward : TaskKind::Copy,
             Pass::Forward, 1e-3 * i, 1e-4 * (i + 1), 0.10);
  }
  auto r = compare_traces(p, m);
  EXPECT_EQ(r.matched, 8u);
  EXPECT_TRUE(r.clean());
  EXPECT_NEAR(r.overall.mean_rel_error, 0.10, 1e-9);
  EXPECT_NEAR(r.overall.max_rel_error, 0.10, 1e-9);
  ASSERT_EQ(r.by_kind.size(), 2u);
  EXPECT_EQ(r.by_kind.at("attention_forward").count, 4u);
  EXPECT_NEAR(r.by_kind.at("copy").mean_rel_error, 0.10, 1e-9);
  ASSERT_EQ(r.by_rank.size(), 4u);
  EXPECT_EQ(r.by_rank.at(3).count, 2u);
}

TEST(TraceCompare, PerKindPassAndRankStatisticsKeepTheSign) {
  Trace p, m;
  // rank 0: attention fwd +20 %, send_recv -50 %; rank 1: attention fwd +40 %, attention bwd -10 %.
  add_pair(p, m, 0, 0, TaskKind::AttentionForward, Pass::Forward, 0.0, 2e-3, 0.20);
  add_pair(p, m, 1, 0, TaskKind::SendRecv, Pass::Forward, 0.0, 1e-3, -0.50);
  add_pair(p, m, 2, 1, TaskKind::AttentionForward, Pass::Forward, 0.0, 2e-3, 0.40);
  add_pair(p, m, 3, 1, TaskKind::AttentionBackward, Pass::Backward, 5e-3, 4e-3, -0.10);
  auto r = compare_traces(p, m);
  ASSERT_EQ(r.matched, 4u);
  // Means and signed maxima computed by hand from the four errors above.
  EXPECT_NEAR(r.by_kind.at("attention_forward").mean_rel_error, 0.30, 1e-9);
  EXPECT_NEAR(r.by_kind.at("attention_forward").max_rel_error, 0.40, 1e-9);
  EXPECT_NEAR(r.by_kind.at("send_recv").max_rel_error, -0.50, 1e-9);
  EXPECT_NEAR(r.by_kind.at("attention_backward").mean_rel_error, -0.10, 1e-9);
  EXPECT_NEAR(r.by_pass.at("forward").mean_rel_error, (0.20 - 0.50 + 0.40) / 3, 1e-9);
  EXPECT_NEAR(r.by_pass.at("forward").max_rel_error, -0.50, 1e-9);
  EXPECT_NEAR(r.by_pass.at("forward").mean_abs_rel_error, (0.20 + 0.50 + 0.40) / 3, 1e-9);
  EXPECT_NEAR(r.by_pass.at("backward").mean_rel_error, -0.10, 1e-9);
  EXPECT_NEAR(r.by_rank.at(0).mean_rel_error, -0.15, 1e-9);
  EXPECT_NEAR(r.by_rank.at(0).max_rel_error, -0.50, 1e-9);
  EXPECT_NEAR(r.by_rank.at(1).mean_rel_error, 0.15, 1e-9);
  EXPECT_NEAR(r.overall.mean_rel_error, 0.0, 1e-9);
  // Summed durations: measured 2+1+2+4 ms; predicted 2.4+0.5+2.8+3.6 ms.
  EXPECT_NEAR(r.overall.measured_s, 9e-3, 1e-12);
  EXPECT_NEAR(r.overall.predicted_s, 9.3e-3, 1e-12);
}

TEST(TraceCompare, WorstListsLargestMagnitudeFirstAndIsCapped) {
  Trace p, m;
  const double errs[] = {0.05, -0.8, 0.3, 1.5, -0.01};
  for (TaskId i = 0; i < 5; ++i) add_pair(p, m, i, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3, errs[i]);
  CompareOptions o;
  o.worst_count = 3;
  auto r = compare_traces(p, m, o);
  ASSERT_EQ(r.worst.size(), 3u);
  EXPECT_EQ(r.worst[0].task, 3u);
  EXPECT_EQ(r.worst[1].task, 1u);
  EXPECT_EQ(r.worst[2].task, 2u);
  EXPECT_NEAR(r.worst[1].rel_error, -0.8, 1e-9);
  EXPECT_NEAR(r.overall.max_rel_error, 1.5, 1e-9);
}

TEST(TraceCompare, MissingTasksAreReportedBothWays) {
  Trace p, m;
  add_pair(p, m, 0, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3, 0.0);
  p.events.push_back(event(7, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  p.events.push_back(event(5, 1, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  m.events.push_back(event(9, 1, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  auto r = compare_traces(p, m);
  EXPECT_FALSE(r.clean());
  EXPECT_EQ(r.matched, 1u);
  EXPECT_EQ(r.missing_in_measured, (std::vector<TaskId>{7, 5}));
  EXPECT_EQ(r.missing_in_predicted, (std::vector<TaskId>{9}));
}

TEST(TraceCompare, RankOrKindMismatchIsReportedAndLeftOutOfStatistics) {
  Trace p, m;
  add_pair(p, m, 0, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3, 0.25);
  p.events.push_back(event(1, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  m.events.push_back(event(1, 2, TaskKind::SendRecv, Pass::Forward, 0, 5e-3));
  auto r = compare_traces(p, m);
  ASSERT_EQ(r.mismatched.size(), 1u);
  EXPECT_EQ(r.mismatched[0].task, 1u);
  EXPECT_NE(r.mismatched[0].what.find("rank 0 vs 2"), std::string::npos);
  EXPECT_NE(r.mismatched[0].what.find("kind copy vs send_recv"), std::string::npos);
  EXPECT_EQ(r.matched, 1u);
  EXPECT_NEAR(r.overall.mean_rel_error, 0.25, 1e-9);
}

TEST(TraceCompare, DuplicateIdsAreReported) {
  Trace p, m;
  add_pair(p, m, 4, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3, 0.0);
  m.events.push_back(event(4, 0, TaskKind::Copy, Pass::Forward, 1, 1e-3));
  auto r = compare_traces(p, m);
  EXPECT_EQ(r.duplicates, (std::vector<TaskId>{4}));
  EXPECT_FALSE(r.clean());
}

TEST(TraceCompare, ZeroLengthMeasuredEventsAreNotDividedBy) {
  Trace p, m;
  add_pair(p, m, 0, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3, 0.5);
  p.events.push_back(event(1, 0, TaskKind::Copy, Pass::Forward, 0, 1e-3));
  m.events.push_back(event(1, 0, TaskKind::Copy, Pass::Forward, 0, 0.0));
  auto r = compare_traces(p, m);
  EXPECT_EQ(r.too_short, (std::vector<TaskId>{1}));
  EXPECT_EQ(r.matched, 1u);
  EXPECT_NEAR(r.overall.max_rel_error, 0.5, 1e-9);
}

TEST(TraceCompare, PassSpansCompareFirstStartToLastEnd) {
  Trace p, m;
  // measured forward: [0, 1 ms] and [0.5, 3 ms] -> span 3 ms; predicted: ends at 0.5+2.5*1.2=3.5 ms.
  add_pair(p, m, 0, 0, TaskKind::Copy, Pass::Forward, 0.0, 1e-3, 0.0);
  add_pair(p, m, 1, 1, TaskKind::Copy, Pass::Forward, 0.5e-3, 2.5e-3, 0.2);
  auto r = compare_traces(p, m);
  ASSERT_EQ(r.spans.count("forward"), 1u);
  EXPECT_NEAR(r.spans.at("forward").measured_s, 3e-3, 1e-12);
  EXPECT_NEAR(r.spans.at("forward").predicted_s, 3.5e-3, 1e-12);
  EXPECT_NEAR(r.spans.at("forward").rel_error, 0.5 / 3.0, 1e-9);
  EXPECT_EQ(r.spans.count("backward"), 0u);
}

TEST(TraceCompare, NegativeThresholdIsRejected) {
  CompareOptions o;
  o.min_measured_s = -1;
  EXPECT_THROW(compare_traces({}, {}, o), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim
