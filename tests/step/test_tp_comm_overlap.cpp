// model.tp_comm_overlap (Transformer Engine userbuffers, docs/metrics.md section 4): each
// sequence-parallel all-gather runs while its GEMM's first tp - 1 token chunks compute, each
// reduce-scatter while the chunks after the first compute; the layer's work is unchanged.
#include <gtest/gtest.h>

#include "engine/analytic/analytic_backend.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "tests/step/step_graph_cases.h"

namespace hcpsim::step {
namespace {

struct LayerCounts {
  double gemm_flops = 0;
  double tp_bytes = 0;
  int gemms = 0;
  int reduce_scatters = 0;
};

LayerCounts count(const Scenario& s) {
  GraphOptions o;
  o.layers = 1;
  o.whole_layer = true;
  const RankLayout layout = RankLayout::from_scenario(model_parallel_slice(s));
  const TaskGraph g = build_task_graph(model_parallel_slice(s), layout, o);
  LayerCounts c;
  for (const Task& t : g.tasks()) {
    if (t.rank != 0) continue;
    if (t.kind == TaskKind::Gemm) {
      c.gemm_flops += t.flops;
      ++c.gemms;
    }
    if (t.stream == Stream::NcclTp) c.tp_bytes += t.bytes;
    if (t.kind == TaskKind::ReduceScatter && t.stream == Stream::NcclTp) ++c.reduce_scatters;
  }
  return c;
}

Scenario overlap_scenario(bool on) {
  testing::StepCase c{.name = "tp-overlap"};
  c.tp_comm_overlap = on;
  return testing::step_case_scenario(c);
}

TEST(TpCommOverlap, SameWorkInChunks) {
  const LayerCounts off = count(overlap_scenario(false));
  const LayerCounts on = count(overlap_scenario(true));
  EXPECT_NEAR(on.gemm_flops, off.gemm_flops, 1e-6 * off.gemm_flops);
  EXPECT_NEAR(on.tp_bytes, off.tp_bytes, 1e-6 * off.tp_bytes);
  // Forward: QKV, FC1 (after an all-gather) and the output projection, FC2 (before a
  // reduce-scatter) in two tasks each; backward: the first GEMM next to each of its four collectives.
  EXPECT_EQ(on.gemms, off.gemms + 4 + 4);
  EXPECT_EQ(on.reduce_scatters, 2 * off.reduce_scatters);
}

TEST(TpCommOverlap, HidesCollectivesBehindGemms) {
  auto backend = make_analytic_backend();
  Report off_layer, on_layer;
  const double off = predict_step(overlap_scenario(false), *backend, &off_layer).time_s;
  const double on = predict_step(overlap_scenario(true), *backend, &on_layer).time_s;
  EXPECT_LT(on, off);
  EXPECT_LT(layer_times_of(on_layer).layer_forward_s, layer_times_of(off_layer).layer_forward_s);
}

}  // namespace
}  // namespace hcpsim::step
