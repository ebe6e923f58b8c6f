// Closed forms on a hand-built flat p2p ring forward (the p2p ring of docs/schedules.md, R = P ranks): the
// expected times are derived here from the cost formulas, independently of the scheduler.
#include <gtest/gtest.h>

#include "engine/cost/route.h"
#include "tests/analytic/run_helpers.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

struct RingGraph {
  TaskGraph g;
  std::vector<TaskId> concat, out_corr;
};

// KV concat (main); per step i: SR(i) on nccl:p2p issued from σ_i, Attn(i) on σ_i, Merge(i-1) on σ_{i-1};
// final merge; output correction on main. `attn_flops` per step, `m_kv` bytes per transfer.
RingGraph ring_forward(int P, double m_kv, double attn_flops, std::int64_t chunk_tokens, double merge_bytes) {
  RingGraph rg;
  TaskGraph& g = rg.g;
  AttentionShape shape;
  shape.q_len = shape.kv_len = chunk_tokens;
  shape.head_dim_qk = shape.head_dim_v = 128;
  shape.section = MaskSection::Full;
  const auto si = g.add_attention(shape);
  std::vector<std::uint32_t> ops;
  for (int i = 0; i + 1 < P; ++i) {
    CommOp op;
    op.kind = TaskKind::SendRecv;
    op.group = GroupKind::CP;
    for (int r = 0; r < P; ++r) {
      op.ranks.push_back(r);
      op.transfers.push_back({r, (r + 1) % P, m_kv});
    }
    ops.push_back(g.add_comm(op));
  }
  for (int r = 0; r < P; ++r) {
    auto add = [&](TaskKind k, Stream st, int step, const char* label) {
      Task t;
      t.rank = r;
      t.kind = k;
      t.stream = st;
      t.step = step;
      return g.add_task(t, label);
    };
    TaskId last[2] = {kNone, kNone};   // last task issued on main (0) / cp (1)
    auto after = [&](TaskId before, TaskId t) {
      if (before != kNone) g.add_dep(before, t);
    };
    const TaskId concat = add(TaskKind::Copy, Stream::Main, -1, "kv_concat");
    g.task(concat).bytes = m_kv;
    last[0] = concat;
    rg.concat.push_back(concat);
    TaskId prev_sr = kNone, prev_merge = kNone;
    std::vector<TaskId> attn(P);
    for (int i = 0; i < P; ++i) {
      const int s = i % 2;
      TaskId sr = kNone;
      if (i + 1 < P) {
        sr = add(TaskKind::SendRecv, Stream::NcclP2P, i, "send_recv_kv");
        g.task(sr).comm = ops[i];
        g.task(sr).bytes = m_kv;
        g.comm(ops[i]).tasks.push_back(sr);
        after(prev_sr, sr);
        after(last[s], sr);
      }
      attn[i] = add(TaskKind::AttentionForward, s ? Stream::Cp : Stream::Main, i, "attn");
      g.task(attn[i]).flops = attn_flops;
      g.task(attn[i]).attention = si;
      after(prev_sr, attn[i]);
      after(last[s], attn[i]);
      last[s] = attn[i];
      if (i >= 1) {
        const int ps = (i - 1) % 2;
        const TaskId m = add(TaskKind::LseMerge, ps ? Stream::Cp : Stream::Main, i - 1, "lse_merge");
        g.task(m).bytes = merge_bytes;
        after(last[ps], m);
        after(prev_merge, m);
        last[ps] = m;
        prev_merge = m;
      }
      prev_sr = sr;
    }
    const int ls = (P - 1) % 2;
    const TaskId m = add(TaskKind::LseMerge, ls ? Stream::Cp : Stream::Main, P - 1, "lse_merge");
    g.task(m).bytes = merge_bytes;
    after(last[ls], m);
    after(prev_merge, m);
    last[ls] = m;
    const TaskId oc = add(TaskKind::OutCorrection, Stream::Main, -1, "out_corr");
    g.task(oc).bytes = merge_bytes;
    after(last[0], oc);
    after(last[1], oc);
    rg.out_corr.push_back(oc);
  }
  return rg;
}

TEST(RingClosedForm, CommunicationDominantIsPMinusOneTransfersPlusOneStep) {
  for (const int P : {2, 4, 8, 16}) {
    for (const bool inter : {false, true}) {
      const Scenario s = inter ? test::dgx_scenario(P, 1) : test::dgx_scenario(1, P);
      const double m_kv = 64.0 * 1024 * 1024, merge = 1e6;
      const auto rg = ring_forward(P, m_kv, 1e10, 4096, merge);   // tiny attention: comm dominant
      const auto r = test::run_analytic(rg.g, s);
      // Expected: concat + (P-1) transfers on the bottleneck link + last attention + last merge + correction.
      const double bw = inter ? 50e9 : 450e9, plateau = inter ? 0.94 : 0.82;
      const double half = inter ? 256.0 * 1024 : 1024.0 * 1024;
      const double lat = inter ? 5e-6 : 2e-6;
      const double x = lat + m_kv / (bw * plateau * m_kv / (m_kv + half));
      const double copy = 2e-6 + m_kv / (3.35e12 * 0.8), mrg = 2e-6 + merge / (3.35e12 * 0.8);
      const double f = 4096.0 / (4096.0 + 80.0);
      const double attn = 2e-6 + 1e10 / (989e12 * 0.62 * f * f);
      ASSERT_LT(attn + mrg, x);
      const double expected = copy + (P - 1) * x + attn + mrg + mrg;
      EXPECT_NEAR(r.makespan_s, expected, expected * 1e-9) << "P=" << P << " inter=" << inter;
    }
  }
}

TEST(RingClosedForm, ComputeDominantIsTheRanksKernelWork) {
  for (const int P : {2, 4, 8}) {
    const Scenario s = test::dgx_scenario(1, P);
    const double m_kv = 1e6, merge = 4e6, flops = 2e13;   // big attention, small messages
    const auto rg = ring_forward(P, m_kv, flops, 16384, merge);
    const auto r = test::run_analytic(rg.g, s);
    const double copy = 2e-6 + m_kv / (3.35e12 * 0.8), mrg = 2e-6 + merge / (3.35e12 * 0.8);
    const double f = 16384.0 / (16384.0 + 80.0);
    const double attn = 2e-6 + flops / (989e12 * 0.62 * f * f);
    // The GPU never idles after the concat: all kernel work back to back (processor sharing is
    // work-conserving), plus the correction, which waits for every merge.
    const double expected = copy + P * attn + P * mrg + mrg;
    EXPECT_NEAR(r.makespan_s, expected, expected * 1e-9) << "P=" << P;
  }
}

TEST(RingClosedForm, MoreBandwidthOrEfficiencyIsNeverSlower) {
  const int P = 8;
  double prev_bw = 1e300, prev_eff = 1e300;
  for (const double scale : {0.25, 0.5, 1.0, 2.0, 4.0}) {
    Scenario s = test::dgx_scenario(P, 1);
    s.cluster.nic_bandwidth_Bps *= scale;
    const auto rg = ring_forward(P, 8e6, 2e11, 8192, 1e6);
    const double t_bw = test::run_analytic(rg.g, s).makespan_s;
    EXPECT_LE(t_bw, prev_bw * (1 + 1e-12));
    prev_bw = t_bw;
    Scenario e = test::dgx_scenario(P, 1);
    e.cluster.efficiency.attention_forward = std::min(1.0, 0.2 * scale);
    const double t_eff = test::run_analytic(rg.g, e).makespan_s;
    EXPECT_LE(t_eff, prev_eff * (1 + 1e-12));
    prev_eff = t_eff;
  }
}

}  // namespace
}  // namespace hcpsim
