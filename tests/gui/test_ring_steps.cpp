// Ring-step model against docs/schedules.md: sections and kv sources (the section table), chunk
// layout after the level-0 a2a (its a2a+p2p example), exact coverage of the causal block matrix, load balance.
#include <gtest/gtest.h>

#include "gui/models/ring_steps.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

RingStepParams params(int cp, int a2a, CpCommType t, bool causal = true) {
  RingStepParams p;
  p.cp = cp;
  p.a2a = a2a;
  p.type = t;
  p.causal = causal;
  return p;
}

TEST(RingSteps, SectionTableForRingOfFourMatchesSpec) {
  // Section table of docs/schedules.md, forward, P=4: (source, section) per step for p = 0..3.
  const char* expect[4][4] = {{"0d", "3u", "2u", "1u"},
                              {"1d", "0l", "3u", "2u"},
                              {"2d", "1l", "0l", "3u"},
                              {"3d", "2l", "1l", "0l"}};
  for (int a2a : {1, 2}) {   // flat p2p cp=4, and a2a+p2p [2,4] (ring level identical)
    const RingStepModel m(params(4 * a2a, a2a, a2a == 1 ? CpCommType::P2P : CpCommType::A2AP2P));
    ASSERT_EQ(m.step_count(), 4);
    for (int p = 0; p < 4; ++p) {
      for (int t = 0; t < 4; ++t) {
        const RankStep r = m.rank_step(p * a2a, t);
        const char sec = r.section == MaskSection::Diagonal ? 'd' : r.section == MaskSection::Lower ? 'l' : 'u';
        const std::string got = std::string(1, char('0' + r.kv_source)) + sec;
        EXPECT_EQ(got, expect[p][t]) << "A=" << a2a << " p=" << p << " t=" << t;
      }
    }
  }
}

TEST(RingSteps, HierarchicalWorkedExample) {
  // docs/schedules.md: tp=1 cp=4 [2,2]. Ranks 0 and 1 hold [C0 C1 | C6 C7]; ranks 2, 3 hold [C2 C3 | C4 C5].
  const RingStepModel m(params(4, 2, CpCommType::A2AP2P));
  EXPECT_EQ(m.rank_step(0, 0).q_chunks, (std::vector<int>{0, 1, 6, 7}));
  EXPECT_EQ(m.rank_step(1, 0).q_chunks, (std::vector<int>{0, 1, 6, 7}));
  EXPECT_EQ(m.rank_step(3, 0).q_chunks, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(m.rank_step(1, 0).heads, "heads 2/2");
  // p=0 step 1: upper, C6C7 x C2..C5.
  const RankStep s = m.rank_step(0, 1);
  EXPECT_EQ(s.section, MaskSection::Upper);
  EXPECT_EQ(s.q_chunks_used, (std::vector<int>{6, 7}));
  EXPECT_EQ(s.kv_chunks_used, (std::vector<int>{2, 3, 4, 5}));
  // p=1 step 1: lower, C2..C5 x C0C1.
  const RankStep l = m.rank_step(2, 1);
  EXPECT_EQ(l.section, MaskSection::Lower);
  EXPECT_EQ(l.q_chunks_used, (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(l.kv_chunks_used, (std::vector<int>{0, 1}));
  // Before the a2a, CP index i holds C_i and C_{2cp-1-i} (3.1).
  EXPECT_EQ(m.initial_chunks(1), (std::vector<int>{1, 6}));
}

struct Coverage {
  int cp, a2a;
  CpCommType type;
  bool causal;
};

class CoverageTest : public ::testing::TestWithParam<Coverage> {};

TEST_P(CoverageTest, EveryNeededBlockComputedExactlyOnce) {
  const auto c = GetParam();
  const RingStepModel m(params(c.cp, c.a2a, c.type, c.causal));
  EXPECT_TRUE(m.every_block_once());
  const int n = 2 * c.cp;
  int computed = 0;
  for (int q = 0; q < n; ++q)
    for (int k = 0; k < n; ++k) computed += m.cell(q, k).times;
  EXPECT_EQ(computed, c.causal ? n * (n + 1) / 2 : n * n);
  if (c.causal) {
    EXPECT_EQ(m.cell(0, n - 1).owner, -1);
  }   // the top-right block is masked away
}

INSTANTIATE_TEST_SUITE_P(
    Modes, CoverageTest,
    ::testing::Values(Coverage{1, 1, CpCommType::P2P, true}, Coverage{2, 1, CpCommType::P2P, true},
                      Coverage{8, 1, CpCommType::P2P, true}, Coverage{8, 1, CpCommType::P2P, false},
                      Coverage{4, 2, CpCommType::A2AP2P, true}, Coverage{8, 2, CpCommType::A2AP2P, true},
                      Coverage{8, 4, CpCommType::A2AP2P, true}, Coverage{16, 8, CpCommType::A2AP2P, true},
                      Coverage{16, 4, CpCommType::A2AP2P, false}, Coverage{4, 1, CpCommType::AllGather, true},
                      Coverage{6, 1, CpCommType::AllGather, true}, Coverage{4, 1, CpCommType::A2A, true}));

TEST(RingSteps, FlatRingIsLoadBalanced) {
  // Causal, 2cp chunks: n(n+1)/2 blocks shared by cp ranks -> (2cp+1) blocks each.
  for (int cp : {2, 4, 8}) {
    const RingStepModel m(params(cp, 1, CpCommType::P2P));
    for (int p = 0; p < cp; ++p) EXPECT_EQ(m.blocks_of_owner(p), 2 * cp + 1) << "cp=" << cp << " p=" << p;
  }
}

TEST(RingSteps, AllGatherBalancedAcrossRanksToo) {
  const RingStepModel m(params(4, 1, CpCommType::AllGather));
  EXPECT_EQ(m.step_count(), 2);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(m.blocks_of_owner(r), 9);
  // Step 0 of rank 1: query chunk C1 against the KV prefix C0, C1 (bottom-right causal).
  EXPECT_EQ(m.rank_step(1, 0).kv_chunks_used, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.rank_step(1, 1).q_chunks_used, (std::vector<int>{6}));
}

TEST(RingSteps, RejectsBadSizes) {
  EXPECT_THROW(RingStepModel(params(0, 1, CpCommType::P2P)), std::invalid_argument);
  EXPECT_THROW(RingStepModel(params(6, 4, CpCommType::A2AP2P)), std::invalid_argument);
  const RingStepModel m(params(4, 1, CpCommType::P2P));
  EXPECT_THROW(m.rank_step(4, 0), std::out_of_range);
  EXPECT_THROW(m.rank_step(0, 4), std::out_of_range);
}

TEST(RingSteps, ParamsFromScenario) {
  Scenario s;
  s.model.context_parallel_size = 8;
  s.model.cp_comm_type = {CpCommType::A2AP2P};
  s.model.hierarchical_context_parallel_sizes = {2, 4};
  const auto p = RingStepModel::params_from(s);
  EXPECT_EQ(p.cp, 8);
  EXPECT_EQ(p.a2a, 2);
  EXPECT_TRUE(p.causal);
  EXPECT_EQ(RingStepModel(p).ring_size(), 4);
}

}  // namespace
