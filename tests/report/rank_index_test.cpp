// The report's grouping by rank (RankIndex, group_by_rank) and its busy unions, whose intervals are
// collected per stream and merged: a stream given out of order, overlapping streams and ranks far
// apart must give the unions computed by hand.
#include <gtest/gtest.h>

#include <vector>

#include "engine/report/intervals.h"
#include "engine/report/rank_index.h"
#include "engine/report/report.h"
#include "tests/report/report_events.h"

namespace hcpsim {
namespace {

TEST(RankIndex, NumbersDenseAndSparseRanksInAscendingOrder) {
  const std::vector<std::int32_t> dense = {3, 1, 2, 1, 3};
  const RankIndex d(dense);
  ASSERT_EQ(d.size(), 3u);
  for (std::size_t k = 0; k < d.size(); ++k) {
    EXPECT_EQ(d.rank(k), static_cast<std::int32_t>(k) + 1);
    EXPECT_EQ(d.index(d.rank(k)), k);
  }
  // Ranks far apart (more than the events plus 65,536): the sorted-list form.
  const std::vector<std::int32_t> sparse = {1000000, -5, 1000000, 7};
  const RankIndex s(sparse);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s.rank(0), -5);
  EXPECT_EQ(s.rank(1), 7);
  EXPECT_EQ(s.rank(2), 1000000);
  EXPECT_EQ(s.index(1000000), 2u);
}

TEST(RankIndex, GroupingByRankIsStable) {
  const std::vector<std::int32_t> slot_of = {2, 0, 2, 1, 0, 2};
  const EventsByRank g = group_by_rank(slot_of, 3);
  EXPECT_EQ(g.first, (std::vector<std::uint32_t>{0, 2, 3, 6}));
  EXPECT_EQ(g.index, (std::vector<std::uint32_t>{1, 4, 3, 0, 2, 5}));
}

TEST(IntervalUnion, SortedInputGivesTheUnionOfUnsortedInput) {
  std::vector<std::pair<double, double>> raw = {{5, 6}, {0, 1}, {1, 2}, {0.5, 1.5}, {3, 4}};
  std::vector<std::pair<double, double>> sorted = raw;
  std::sort(sorted.begin(), sorted.end());
  const IntervalUnion a = IntervalUnion::of(raw);
  const IntervalUnion b = IntervalUnion::of_sorted(sorted);
  const std::vector<std::pair<double, double>> expected = {{0, 2}, {3, 4}, {5, 6}};   // touching parts join
  EXPECT_EQ(a.parts(), expected);
  EXPECT_EQ(b.parts(), expected);
  EXPECT_DOUBLE_EQ(a.length(), 4.0);
}

TraceEvent event(TaskId id, int rank, TaskKind k, Stream st, double a, double b) {
  return test::report_event(id, rank, k, st, a, b, "L0.fwd.t" + std::to_string(id));
}

TEST(Report, BusyUnionsMergeStreamsGivenInAnyOrder) {
  Trace t;
  t.scenario = "unions";
  t.backend = "test";
  t.world_size = 2;
  t.gpus_per_node = 8;
  // Rank 1000 (far from rank 0): compute on main out of order ([4,5] before [0,1]), compute on cp
  // overlapping main ([0.5,2]), a zero-length task (ignored), communication on two streams
  // ([1,3] and [2,4]: 3 s busy, of which compute hides [1,2] and [4,4]: 1 s).
  t.events = {event(0, 1000, TaskKind::Copy, Stream::Main, 4, 5),
              event(1, 1000, TaskKind::Copy, Stream::Main, 0, 1),
              event(2, 1000, TaskKind::Copy, Stream::Cp, 0.5, 2),
              event(3, 1000, TaskKind::Copy, Stream::Cp, 3, 3),
              event(4, 1000, TaskKind::SendRecv, Stream::NcclP2P, 1, 3),
              event(5, 1000, TaskKind::AllToAll, Stream::NcclA2A, 2, 4),
              // Rank 0: one compute task, one exchange hidden for a quarter.
              event(6, 0, TaskKind::AttentionForward, Stream::Main, 0, 1),
              event(7, 0, TaskKind::SendRecv, Stream::NcclP2P, 0.75, 1.75)};
  const Report r = compute_report(t);
  // Compute: rank 1000 [0,2] u [4,5] = 3 s, rank 0 1 s.
  EXPECT_DOUBLE_EQ(r.compute_busy_s, 4.0);
  // Communication: rank 1000 [1,4] = 3 s, rank 0 1 s.
  EXPECT_DOUBLE_EQ(r.comm_busy_s, 4.0);
  // Hidden: rank 1000 [1,2] = 1 s, rank 0 [0.75,1] = 0.25 s.
  EXPECT_NEAR(r.overlap_fraction, 1.25 / 4.0, 1e-15);
  EXPECT_EQ(r.slowest_rank, 1000);
}

}  // namespace
}  // namespace hcpsim
