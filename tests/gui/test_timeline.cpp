// Timeline adapter (lanes, the engine's critical path and matching) and geometry on a hand-made
// two-rank trace whose answers are worked out by hand (see tests/gui/data/two_ranks_trace.json).
#include <gtest/gtest.h>

#include <fstream>

#include "engine/report/report.h"

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
  EXPECT_EQ(t.events[l1].peers, std::vector<std::int32_t>{1});
  EXPECT_DOUBLE_EQ(t.events[l1].bytes, 8.0e6);
}

TEST(TimelineTrace, CriticalPathIsTheEnginesRule) {
  // Last event: rank 1's step-1 attention (12-20 us). Before it started, rank 1's receive ended at 12;
  // of the two members of that exchange (rank 0's started at 2, rank 1's at 5) rank 1's became ready
  // last, so the path stays on rank 1 and reaches its step-0 attention (0-3), which ended before 5.
  const auto t = sample();
  const auto path = critical_path(t);
  ASSERT_EQ(path.size(), 3u);
  EXPECT_EQ(t.events[path[0]].task, 3u);
  EXPECT_EQ(t.events[path[1]].task, 2u);
  EXPECT_EQ(t.events[path[2]].task, 4u);
  // The same tasks as the engine's critical path of the same trace.
  const auto engine = hcpsim::critical_path(t.trace);
  ASSERT_EQ(engine.size(), path.size());
  for (std::size_t i = 0; i < path.size(); ++i) EXPECT_EQ(t.events[path[i]].task, engine[i].task);
}

TEST(TimelineTrace, MatchedTasksAreTheComparisonsMatches) {
  // Measured: the same trace with task 4 twice as long; every task matches by id.
  Trace measured = sample().trace;
  for (auto& e : measured.events)
    if (e.task == 4) e.end_s = e.start_s + 16e-6;
  const auto m = match_tasks(sample(), from_engine_trace(measured));
  ASSERT_EQ(m.size(), 6u);
  EXPECT_EQ(m[4].task, 4);
  EXPECT_NEAR(m[4].predicted_s, 8e-6, 1e-15);
  EXPECT_NEAR(m[4].measured_s, 16e-6, 1e-15);
  EXPECT_NEAR(m[0].predicted_s, m[0].measured_s, 1e-15);
}

TEST(TimelineTrace, BadInputNamesTheFileAndField) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  try {
    load_chrome_trace(write("pred.json", "{not json"));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("pred.json"), std::string::npos);
  }
  try {   // the engine's reader wants every field a hcpsim trace has: here args.rank is missing
    load_chrome_trace(write("norank.json", R"({"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":1,"args":{"task":0}}]})"));
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("args.rank"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_chrome_trace(write("events.json", R"({"events":[]})")), std::runtime_error);
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
  EXPECT_EQ(t.events[*hit].task, 4u);
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
