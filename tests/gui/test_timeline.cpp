// Timeline trace parsing, lanes, critical path and geometry on a hand-made two-rank trace whose
// answers are worked out by hand (see tests/gui/data/two_ranks_trace.json).
#include <gtest/gtest.h>

#include "gui/models/timeline_geometry.h"
#include "gui/models/timeline_trace.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

TimelineTrace sample() { return load_chrome_trace(HCPSIM_GUI_TEST_DATA "/two_ranks_trace.json"); }

TEST(TimelineTrace, LanesAreRankThenStreamOrder) {
  const auto t = sample();
  ASSERT_EQ(t.lanes.size(), 4u);
  EXPECT_EQ(t.lanes[0].rank, 0);
  EXPECT_EQ(t.lanes[0].stream, "main");
  EXPECT_EQ(t.lanes[1].stream, "nccl:p2p");
  EXPECT_EQ(t.lanes[2].rank, 1);
  EXPECT_EQ(t.lanes[3].stream, "nccl:p2p");
  ASSERT_EQ(t.events.size(), 6u);
  EXPECT_DOUBLE_EQ(t.begin_s, 0);
  EXPECT_NEAR(t.end_s, 20e-6, 1e-15);
  // Lane 0 (rank 0 main): the attention then the merge, by start time.
  const auto [lo, hi] = t.lane_range(0);
  ASSERT_EQ(hi - lo, 2u);
  EXPECT_EQ(t.events[lo].kind, TaskKind::AttentionForward);
  EXPECT_DOUBLE_EQ(t.events[lo].flops, 4.0e9);
  EXPECT_EQ(t.events[lo + 1].kind, TaskKind::LseMerge);
  const auto [l1, h1] = t.lane_range(1);
  ASSERT_EQ(h1 - l1, 1u);
  EXPECT_EQ(t.events[l1].peers, std::vector<int>{1});
  EXPECT_DOUBLE_EQ(t.events[l1].bytes, 8.0e6);
}

TEST(TimelineTrace, CriticalPathCrossesToThePeer) {
  // Last event: rank 1's step-1 attention (12-20 us). Before it started, rank 1's receive ended at 12;
  // that receive started at 5, when rank 0's first attention (0-5) had ended: a peer of the receive.
  const auto t = sample();
  const auto path = critical_path(t);
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(t.events[path[0]].task, 0);
  EXPECT_EQ(t.events[path[1]].task, 2);
  EXPECT_EQ(t.events[path[2]].task, 4);
}

TEST(TimelineTrace, ArgsRankAndStreamWithoutMetadata) {
  const auto t = parse_chrome_trace(
      R"([{"ph":"X","name":"a","pid":1,"tid":9,"ts":1,"dur":2,"args":{"rank":7,"stream":"cp","kind":"copy"}},
          {"ph":"X","name":"b","pid":1,"tid":4,"ts":0,"dur":1}])");
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].rank, 4);          // tid fallback
  EXPECT_EQ(t.lanes[0].stream, "tid 4");
  EXPECT_EQ(t.lanes[1].rank, 7);
  EXPECT_EQ(t.lanes[1].stream, "cp");
  EXPECT_FALSE(t.events[0].has_kind);
  EXPECT_TRUE(t.events[1].has_kind);
}

TEST(TimelineTrace, BadInputNamesTheSource) {
  try {
    parse_chrome_trace("{not json", "pred.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("pred.json"), std::string::npos);
  }
  EXPECT_THROW(parse_chrome_trace(R"({"events":[]})", "x"), std::runtime_error);
  EXPECT_THROW(parse_chrome_trace(R"([{"ph":"X","name":"a"}])", "x"), std::runtime_error);
  EXPECT_THROW(load_chrome_trace("/nonexistent/trace.json"), std::runtime_error);
}

TEST(TimelineTrace, FromEngineTrace) {
  Trace tr;
  TraceEvent e;
  e.rank = 3;
  e.stream = Stream::NcclA2A;
  e.kind = TaskKind::AllToAll;
  e.start_s = 1e-3;
  e.end_s = 2e-3;
  tr.events.push_back(e);
  const auto t = from_engine_trace(tr);
  ASSERT_EQ(t.lanes.size(), 1u);
  EXPECT_EQ(t.lanes[0].stream, "nccl:a2a");
  EXPECT_DOUBLE_EQ(t.end_s, 2e-3);
}

TEST(TimelineGeometry, TimeAndXAreInverse) {
  const TimelineGeometry g(0, 20e-6, 1120);   // 1000 px for 20 us: 50 px per us
  EXPECT_DOUBLE_EQ(g.x_of(0), TimelineGeometry::kLabelWidth);
  EXPECT_DOUBLE_EQ(g.x_of(10e-6), TimelineGeometry::kLabelWidth + 500);
  EXPECT_NEAR(g.t_of(g.x_of(13e-6)), 13e-6, 1e-18);
  EXPECT_EQ(g.lane_at(TimelineGeometry::kAxisHeight - 1), -1);
  EXPECT_EQ(g.lane_at(TimelineGeometry::kAxisHeight + 2.5 * TimelineGeometry::kLaneHeight), 2);
}

TEST(TimelineGeometry, ZoomKeepsAnchorAndPanShifts) {
  TimelineGeometry g(0, 20e-6, 1120);
  const double x = g.x_of(5e-6);
  g.zoom(4, x);
  EXPECT_NEAR(g.t_of(x), 5e-6, 1e-15);
  EXPECT_NEAR(g.t1_s() - g.t0_s(), 5e-6, 1e-15);
  const double before = g.t0_s();
  g.pan(100);   // 100 px at 1000 px / 5 us = 0.5 us earlier
  EXPECT_NEAR(g.t0_s(), before - 0.5e-6, 1e-15);
}

TEST(TimelineGeometry, HitTestFindsEventsAndGaps) {
  const auto t = sample();
  const TimelineGeometry g(0, 20e-6, 1120);
  const double y1 = g.lane_top(2) + TimelineGeometry::kLaneHeight / 2;   // rank 1 main
  auto hit = g.event_at(t, QPointF(g.x_of(15e-6), y1));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(t.events[*hit].task, 4);
  EXPECT_FALSE(g.event_at(t, QPointF(g.x_of(8e-6), y1)).has_value());    // gap 3-12 us
  EXPECT_FALSE(g.event_at(t, QPointF(10, y1)).has_value());              // label column
  EXPECT_FALSE(g.event_at(t, QPointF(g.x_of(1e-6), 5000)).has_value()); // below the last lane
}

TEST(TimelineGeometry, TickStepIsOneTwoFive) {
  EXPECT_DOUBLE_EQ(TimelineGeometry(0, 20e-6, 1000).tick_step_s(8), 5e-6);
  EXPECT_DOUBLE_EQ(TimelineGeometry(0, 1e-3, 1000).tick_step_s(10), 1e-4);
  EXPECT_EQ(TimelineGeometry::format_time(1.5e-3), "1.5 ms");
}

}  // namespace
