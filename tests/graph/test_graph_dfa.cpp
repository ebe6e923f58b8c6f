// DistFlashAttn's schedule (cp_comm_type: dfa): the helper plan covers every causal block once
// with at most floor(P/2)+1 blocks per rank, and the graph's send/recv bytes and attention FLOPs
// equal their closed forms (docs/schedules.md "DistFlashAttn").
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <utility>

#include "engine/graph/attention_work.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "engine/schedule/dfa_schedule.h"
#include "tests/graph/graph_sums.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

using schedule::DfaRole;

TEST(DfaPlan, EveryCausalBlockOnceAndBalanced) {
  for (int P = 2; P <= 17; ++P) {
    std::set<std::pair<int, int>> blocks;
    std::map<int, int> busy;
    int idle = 0;
    for (int t = 0; t <= schedule::dfa_last_step(P); ++t)
      for (int p = 0; p < P; ++p) {
        const auto w = schedule::dfa_work(P, p, t);
        if (w.role == DfaRole::Idle) {
          ++idle;
          continue;
        }
        EXPECT_LE(w.kv_owner, w.q_owner) << "P " << P << " rank " << p << " step " << t;
        EXPECT_TRUE(blocks.insert({w.q_owner, w.kv_owner}).second) << "block computed twice, P " << P;
        EXPECT_TRUE(w.role == DfaRole::Local ? w.q_owner == p : w.kv_owner == p);
        ++busy[p];
      }
    EXPECT_EQ(static_cast<int>(blocks.size()), P * (P + 1) / 2) << "P " << P;
    for (const auto& [p, n] : busy) EXPECT_LE(n, P / 2 + 1) << "P " << P << " rank " << p;
    // Odd P: no rank ever waits; even P: the P/2 ranks below P/2 idle in the last step.
    EXPECT_EQ(idle, P % 2 == 1 ? 0 : P / 2) << "P " << P;
  }
}

TEST(DfaPlan, PeersAgree) {
  for (int P = 2; P <= 12; ++P)
    for (bool bwd : {false, true})
      for (int k = 0; k < schedule::dfa_exchanges(P, bwd); ++k)
        for (int p = 0; p < P; ++p) {
          const auto x = schedule::dfa_peers(P, p, k, bwd);
          if (x.fetch_to >= 0) {
            EXPECT_EQ(schedule::dfa_peers(P, x.fetch_to, k, bwd).fetch_from, p);
          }
          if (x.result_to >= 0) {
            EXPECT_EQ(schedule::dfa_peers(P, x.result_to, k, bwd).result_from, p);
          }
          if (x.dkv_to >= 0) {
            EXPECT_EQ(schedule::dfa_peers(P, x.dkv_to, k, bwd).dkv_from, p);
          }
          if (!bwd) {
            EXPECT_EQ(x.dkv_to, -1);
          }
        }
}

struct Sizes {
  double kv, q, out, lse;
};

// Closed forms per CP group: m = floor(P/2) local steps after the diagonal, H = P-1-m helper steps;
// at step u, P-u ranks fetch K/V and u ranks have a helper.
double forward_bytes(int P, const Sizes& z) {
  const int m = P / 2, H = P - 1 - m;
  double b = 0;
  for (int u = 1; u <= m; ++u) b += (P - u) * z.kv;
  for (int u = 1; u <= H; ++u) b += u * (z.q + z.out + 2 * z.lse);
  return b;
}

double backward_bytes(int P, const Sizes& z) {
  const int m = P / 2, H = P - 1 - m;
  double b = 0;
  for (int u = 1; u <= m; ++u) b += 2 * (P - u) * z.kv;               // K/V out, dK/dV back
  for (int u = 1; u <= H; ++u) b += u * (z.q + 2 * z.out + z.lse + z.q);   // Q, O, dO, LSE out, dQ back
  return b;
}

TEST(DfaGraph, SendRecvBytesAndFlopsMatchClosedForms) {
  for (int P : {2, 3, 4, 5, 8})
    for (bool gqa : {false, true}) {
      testing::Config c;
      c.cp = P;
      c.tp = 2;
      c.types = {CpCommType::DistFlashAttn};
      c.heads = 8;
      c.kv_heads = gqa ? 2 : 8;
      c.head_dim = 16;
      c.seq = 64LL * P;
      c.batch = 2;
      const Scenario s = testing::make_scenario(c);
      const RankLayout layout = RankLayout::from_scenario(s);
      const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
      const double tokens = 2.0 * 64;   // batch x chunk
      const int h_t = 4, g_t = gqa ? 1 : 4;
      const Sizes z{tokens * g_t * 2 * 16 * 2, tokens * h_t * 16 * 2, tokens * h_t * 16 * 2, tokens * h_t * 4.0};
      auto sent = [&](Pass pass) {
        return testing::sum_over(g, [&](const Task& t) { return t.kind == TaskKind::SendRecv && t.pass == pass; },
                                 [](const Task& t) { return t.bytes; });
      };
      const int groups = 2;   // tp = 2 CP groups
      EXPECT_DOUBLE_EQ(sent(Pass::Forward), groups * forward_bytes(P, z)) << "P " << P << " gqa " << gqa;
      EXPECT_DOUBLE_EQ(sent(Pass::Backward), groups * backward_bytes(P, z)) << "P " << P << " gqa " << gqa;
      // Every transfer's bytes are counted by its sender task.
      double transfers = 0;
      for (const CommOp& op : g.comms())
        for (const Transfer& x : op.transfers) transfers += x.bytes;
      EXPECT_DOUBLE_EQ(transfers, sent(Pass::Forward) + sent(Pass::Backward));
      // Attention work: P causal diagonal blocks and P(P-1)/2 full blocks per CP group, no more.
      const double pairs = P * attention_pairs(MaskSection::Diagonal, 64, 64) + P * (P - 1) / 2.0 * 64.0 * 64.0;
      const double fwd_flops = testing::sum_over(
          g, [](const Task& t) { return t.kind == TaskKind::AttentionForward; }, [](const Task& t) { return t.flops; });
      EXPECT_DOUBLE_EQ(fwd_flops, groups * 2.0 * 2 * h_t * (16 + 16) * pairs);
      // No rank runs more than floor(P/2)+1 attention kernels per pass.
      for (int r = 0; r < s.world_size(); ++r)
        EXPECT_LE(testing::count_if(g, [&](const Task& t) { return t.rank == r && t.kind == TaskKind::AttentionForward; }),
                  P / 2 + 1);
    }
}

// Compared with TE's p2p ring on the same sequence the forward moves about half the bytes: K/V to
// the P-u ranks of step u <= P/2 plus the helpers' Q and partial outputs, instead of P-1 K/V hops.
TEST(DfaGraph, ForwardTrafficAboutHalfOfTheRing) {
  for (int P : {4, 8}) {
    auto forward_sent = [&](CpCommType type) {
      testing::Config c;
      c.cp = P;
      c.types = {type};
      c.seq = 16LL * P;
      const Scenario s = testing::make_scenario(c);
      const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), graph_options_from(s));
      return testing::sum_over(
          g, [](const Task& t) { return t.kind == TaskKind::SendRecv && t.pass == Pass::Forward; },
          [](const Task& t) { return t.bytes; });
    };
    const double dfa = forward_sent(CpCommType::DistFlashAttn), ring = forward_sent(CpCommType::P2P);
    EXPECT_GT(dfa, 0.4 * ring) << "P " << P;
    EXPECT_LT(dfa, 0.6 * ring) << "P " << P;
  }
}

}  // namespace
}  // namespace hcpsim
