// Megatron's pipeline schedules against their closed forms: with uniform stages and free
// communication, 1F1B takes (m + p - 1)(tf + tb) with bubble (p - 1)/(m + p - 1), and the
// interleaved schedule with v chunks m(tf + tb) + (p - 1)(tf + tb)/v.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "engine/step/pipeline_schedule.h"

namespace hcpsim::step {
namespace {

PipelineInputs uniform(int p, int v, int m, double tf, double tb) {
  PipelineInputs in;
  in.stages = p;
  in.chunks = v;
  in.micro_batches = m;
  in.forward_s.assign(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(v), tf / v));
  in.backward_s.assign(static_cast<std::size_t>(p), std::vector<double>(static_cast<std::size_t>(v), tb / v));
  return in;
}

TEST(PipelineSchedule, OneF1BMatchesTheClosedForm) {
  const double tf = 1.0, tb = 2.0;
  for (int p : {1, 2, 4, 8})
    for (int m : {1, 3, 4, 16, 64}) {
      const PipelineTimes t = simulate_pipeline(uniform(p, 1, m, tf, tb));
      EXPECT_NEAR(t.makespan_s, (m + p - 1) * (tf + tb), 1e-9) << "p=" << p << " m=" << m;
      EXPECT_NEAR(t.bubble_fraction, static_cast<double>(p - 1) / (m + p - 1), 1e-12) << "p=" << p << " m=" << m;
    }
}

TEST(PipelineSchedule, InterleavedMatchesTheClosedForm) {
  const double tf = 1.0, tb = 2.0;
  for (int p : {2, 4})
    for (int v : {2, 3, 4})
      for (int m : {p, 2 * p, 8 * p}) {
        const PipelineTimes t = simulate_pipeline(uniform(p, v, m, tf, tb));
        const double bubble_time = (p - 1) * (tf + tb) / v;
        EXPECT_NEAR(t.makespan_s, m * (tf + tb) + bubble_time, 1e-9) << "p=" << p << " v=" << v << " m=" << m;
        EXPECT_NEAR(t.bubble_fraction, bubble_time / (m * (tf + tb) + bubble_time), 1e-12);
        // Interleaving shrinks the bubble against 1F1B on the same work.
        EXPECT_LT(t.makespan_s, simulate_pipeline(uniform(p, 1, m, tf, tb)).makespan_s);
      }
}

TEST(PipelineSchedule, EveryStepRunsOnceInMegatronsOrder) {
  for (int v : {1, 2})
    for (int s = 0; s < 4; ++s) {
      const auto ops = schedule_order(s, 4, v, 8);
      ASSERT_EQ(ops.size(), static_cast<std::size_t>(2 * 8 * v));
      std::set<std::tuple<bool, int, int>> seen;
      for (const auto& o : ops) EXPECT_TRUE(seen.insert({o.forward, o.micro_batch, o.chunk}).second);
      // Warm-up: 1F1B runs p - s - 1 forwards before the first backward; interleaved 2(p - s - 1) + (v - 1)p.
      std::size_t warmup = 0;
      while (ops[warmup].forward) ++warmup;
      const std::size_t expected = v == 1 ? static_cast<std::size_t>(4 - s - 1) + 1
                                          : static_cast<std::size_t>(2 * (4 - s - 1) + (v - 1) * 4) + 1;
      EXPECT_EQ(warmup, expected) << "stage " << s << " v " << v;   // + the first steady forward
    }
}

TEST(PipelineSchedule, P2PTransfersLengthenTheStep) {
  // 1F1B, uniform stages, transfer c: the fill and drain pay 2(p-1)c at least; in the steady state
  // each stage's next backward waits for a round trip to its neighbour, so at most every one of the
  // m + p - 1 slots pays 2c.
  const int p = 4, m = 8;
  const double tf = 1.0, tb = 2.0, c = 0.25;
  PipelineInputs in = uniform(p, 1, m, tf, tb);
  in.p2p_forward_s = c;
  in.p2p_backward_s = c;
  const PipelineTimes t = simulate_pipeline(in);
  EXPECT_GE(t.makespan_s, (m + p - 1) * (tf + tb) + 2 * (p - 1) * c - 1e-9);
  EXPECT_LE(t.makespan_s, (m + p - 1) * (tf + tb + 2 * c) + 1e-9);
  // One stage: no transfers at all.
  PipelineInputs one = uniform(1, 1, m, tf, tb);
  one.p2p_forward_s = c;
  EXPECT_NEAR(simulate_pipeline(one).makespan_s, m * (tf + tb), 1e-9);
  EXPECT_THROW(simulate_pipeline(uniform(4, 2, 6, tf, tb)), std::invalid_argument);   // 6 % 4 != 0
  in.forward_s.pop_back();
  EXPECT_THROW(simulate_pipeline(in), std::invalid_argument);
}

// overlap_p2p_comm off: each send holds its stage until the transfer has arrived. Two stages, two
// micro-batches, forward 1 s, backward 2 s, transfer 0.5 s each way, worked by hand:
// overlapped  s0 F0[0,1] F1[1,2]        B0[5,7]   B1[8,10]    (s1: F0[1.5,2.5] B0[2.5,4.5] F1[4.5,5.5] B1[5.5,7.5])
// blocking    s0 F0[0,1] F1[1.5,2.5]    B0[5,7]   B1[8.5,10.5] (s1: F0[1.5,2.5] B0[2.5,4.5] F1[5,6] B1[6,8])
TEST(PipelineSchedule, BlockingSendsHoldTheirStageUntilTheTransferArrives) {
  PipelineInputs in = uniform(2, 1, 2, 1.0, 2.0);
  in.p2p_forward_s = in.p2p_backward_s = 0.5;
  EXPECT_NEAR(simulate_pipeline(in).makespan_s, 10.0, 1e-12);
  in.blocking_sends = true;
  EXPECT_NEAR(simulate_pipeline(in).makespan_s, 10.5, 1e-12);
  // Without transfers there is nothing to wait for.
  in.p2p_forward_s = in.p2p_backward_s = 0;
  EXPECT_NEAR(simulate_pipeline(in).makespan_s, simulate_pipeline(uniform(2, 1, 2, 1.0, 2.0)).makespan_s, 1e-12);
}

}  // namespace
}  // namespace hcpsim::step
