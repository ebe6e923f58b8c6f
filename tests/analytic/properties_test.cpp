// Sanity properties of the analytic model over random valid scenarios (fixed seeds).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "engine/schedule/build.h"
#include "tests/analytic/run_helpers.h"
#include "tests/cost/test_scenario.h"

namespace hcpsim {
namespace {

// A random valid scenario: mode, cp (with a hierarchical split for a2a+p2p), tp, nodes, length.
Scenario random_scenario(std::mt19937& rng) {
  auto pick = [&](std::initializer_list<int> v) {
    std::uniform_int_distribution<std::size_t> d(0, v.size() - 1);
    return *(v.begin() + d(rng));
  };
  const int tp = pick({1, 2});
  const int cp = pick({2, 4, 8});
  const int gpn = pick({2, 4, 8});
  const int world = tp * cp * pick({1, 2});
  const int nodes = std::max(1, world / gpn);
  Scenario s = test::dgx_scenario(nodes, std::min(gpn, world));
  s.model.tensor_model_parallel_size = tp;
  s.model.context_parallel_size = cp;
  s.model.num_attention_heads = 16;
  s.model.num_query_groups = pick({8, 16});
  s.model.hidden_size = 2048;
  s.model.seq_length = 2LL * cp * pick({512, 2048, 8192});
  s.model.attn_mask_type = pick({0, 1}) ? MaskType::Causal : MaskType::NoMask;
  const int mode = pick({0, 1, 2, 3});
  s.model.cp_comm_type = {mode == 0 ? CpCommType::P2P
                          : mode == 1 ? CpCommType::A2A
                          : mode == 2 ? CpCommType::AllGather
                                      : CpCommType::A2AP2P};
  if (mode == 3) s.model.hierarchical_context_parallel_sizes = {2, cp / 2};
  return s;
}

struct Outcome {
  double makespan_s = 0;
  std::map<int, double> trace_flops, graph_flops;
};

Outcome simulate(const Scenario& s) {
  const TaskGraph g = build_task_graph(s, RankLayout::from_scenario(s), graph_options_from(s));
  const auto r = test::run_analytic(g, s);
  Outcome o;
  o.makespan_s = r.makespan_s;
  for (const auto& e : r.trace.events) o.trace_flops[e.rank] += e.flops;
  for (const Task& t : g.tasks()) o.graph_flops[t.rank] += t.flops;
  return o;
}

TEST(Properties, MoreBandwidthAndEfficiencyNeverSlower) {
  std::mt19937 rng(20261130);
  for (int i = 0; i < 24; ++i) {
    const Scenario s = random_scenario(rng);
    const double base = simulate(s).makespan_s;
    SCOPED_TRACE("scenario " + std::to_string(i) + " mode " + to_string(s.model.cp_comm_type[0]) + " cp " +
                 std::to_string(s.cp()) + " tp " + std::to_string(s.tp()) + " nodes " + std::to_string(s.cluster.nodes));
    Scenario faster_links = s;
    faster_links.cluster.intra_node_bandwidth_Bps *= 2;
    faster_links.cluster.nic_bandwidth_Bps *= 2;
    EXPECT_LE(simulate(faster_links).makespan_s, base * (1 + 1e-9));
    Scenario faster_nic = s;
    faster_nic.cluster.nic_bandwidth_Bps *= 4;
    EXPECT_LE(simulate(faster_nic).makespan_s, base * (1 + 1e-9));
    Scenario better_kernels = s;
    better_kernels.cluster.efficiency.attention_forward = 0.8;
    better_kernels.cluster.efficiency.attention_backward = 0.7;
    better_kernels.cluster.efficiency.memory = 0.95;
    EXPECT_LE(simulate(better_kernels).makespan_s, base * (1 + 1e-9));
    Scenario straggler = s;
    straggler.cluster.faults.push_back({Fault::Kind::Straggler, 0, 1.5, -1, -1, 1.0});
    EXPECT_GE(simulate(straggler).makespan_s, base * (1 - 1e-9));
  }
}

TEST(Properties, TraceFlopsMatchTheIdealShare) {
  std::mt19937 rng(7);
  for (int i = 0; i < 16; ++i) {
    Scenario s = random_scenario(rng);
    s.simulation.backward = false;
    s.model.attn_mask_type = MaskType::Causal;
    const Outcome o = simulate(s);
    // docs/schedules.md "FLOPs": causal forward per rank = 2*b*h*(d_qk+d_v)*(S^2/2)/(tp*cp), plus the diagonal
    // terms (+c per head per diagonal kernel), which are below 1/c of it.
    const double S = static_cast<double>(s.model.seq_length);
    const double ideal = 2.0 * 16 * (128 + 128) * (S * S / 2) / (s.tp() * s.cp());
    for (const auto& [rank, f] : o.trace_flops) {
      EXPECT_DOUBLE_EQ(f, o.graph_flops.at(rank));
      EXPECT_NEAR(f, ideal, ideal * 4.0 * s.cp() / S) << "rank " << rank << " mode " << to_string(s.model.cp_comm_type[0]);
    }
  }
}

}  // namespace
}  // namespace hcpsim
