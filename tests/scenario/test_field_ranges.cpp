// Valid ranges (engine/validate/field_ranges.h), the whole-scenario feasibility checks
// (feasibility.h) and the cap on kept diagnostics.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <set>

#include "engine/scenario/schema.h"
#include "engine/validate/feasibility.h"
#include "engine/validate/field_ranges.h"
#include "scenario_fixture.h"

namespace hcpsim {
namespace {

// Schema fields that are not numbers (texts, choices, flags, sections, lists without a numeric range).
const std::set<std::string> kNotNumeric{
    "name", "description", "model", "model.attn_mask_type", "model.params_dtype", "model.cp_comm_type",
    "model.hierarchical_context_parallel_sizes", "model.sequence_parallel", "train", "dist",
    "dist.use_decentralized_pg", "dist.order", "cluster", "cluster.preset", "cluster.gpu", "cluster.gpu.name",
    "cluster.intra_node", "cluster.inter_node", "cluster.inter_node.topology", "cluster.efficiency",
    "cluster.calibration", "cluster.faults", "cluster.faults[].rank", "cluster.faults[].node",
    "cluster.faults[].nic", "cluster.faults[].failed", "simulation", "simulation.backend", "simulation.passes",
    "simulation.fold",
    "model.recompute_granularity", "model.recompute_method", "model.elementwise_ops", "model.fp8", "model.fp8_recipe",
    "model.fp8_dot_product_attention", "model.tp_comm_overlap", "model.overlap_p2p_comm", "model.untie_embeddings_and_output_weights",
    "model.account_for_embedding_in_pipeline_split", "model.account_for_loss_in_pipeline_split", "train.mode", "ddp",
    "ddp.use_distributed_optimizer", "ddp.overlap_grad_reduce", "ddp.overlap_param_gather", "ddp.shard_parameters",
    "ddp.grad_reduce_in_fp32", "model.bf16", "model.fp16", "model.gated_linear_unit",
    "cluster.intra_node.nvls", "cluster.efficiency.attention_kernel", "cluster.efficiency.model_terms",
    "cluster.efficiency.model_terms.all", "cluster.efficiency.model_terms.comm_compute_interference",
    "cluster.efficiency.model_terms.bandwidth_curves", "cluster.efficiency.model_terms.host_overheads",
    "cluster.efficiency.model_terms.memory_operators", "cluster.efficiency.model_terms.attention_shapes",
    "cluster.efficiency.model_terms.nccl_rails", "cluster.efficiency.model_terms.nccl_ring_latency",
    "cluster.efficiency.model_terms.nccl_protocols", "cluster.efficiency.model_terms.nccl_p2p_channels",
    "cluster.efficiency.model_terms.gemm_shapes", "cluster.efficiency.model_terms.fp8_work",
    "cluster.efficiency.model_terms.grad_norm",
    "model.dsa", "hyperparallel", "hyperparallel.style", "hyperparallel.load_balance", "hyperparallel.layout",
    "hyperparallel.mesh_dim_names"};

TEST(FieldRanges, EveryNumericSchemaFieldHasARange) {
  std::set<std::string> ranged;
  for (const auto& r : field_ranges()) {
    ranged.insert(r.path);
    EXPECT_LT(r.lo, r.hi) << r.path;
    EXPECT_TRUE(std::isfinite(r.lo) && std::isfinite(r.hi) && r.lo > 0) << r.path;
  }
  for (const auto& p : schema::all_paths()) {
    if (kNotNumeric.count(p)) continue;
    EXPECT_TRUE(ranged.count(p)) << p << " is numeric but has no valid range";
  }
}

// The value just outside each end of a field's range, written in the field's display unit, as an override.
std::string written(const FieldRange& r, double si) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", si / r.unit_factor);
  return std::string(buf) + (*r.unit ? std::string(" ") + r.unit : "");
}

TEST(FieldRanges, EachEndIsEnforcedAfterUnitConversion) {
  int checked = 0;
  for (const auto& r : field_ranges()) {
    if (r.path.find("[]") != std::string::npos) continue;   // list items: the bad-input table covers them
    const bool count = *r.unit == '\0' && r.hi > 10;
    const bool fraction_below_one = r.hi <= 1;   // efficiencies: above 1 is the reader's "(0, 1]"
    for (const bool above : {false, true}) {
      if (above && fraction_below_one) continue;
      if (!above && r.lo <= 1 && count) continue;   // 0 is the reader's "must be positive"
      if (!above && r.path == "cluster.inter_node.oversubscription") continue;   // reader's [1, 1e6]
      if (above && r.path == "cluster.inter_node.oversubscription") continue;
      const double v = above ? (count ? r.hi + 1 : r.hi * 10) : r.lo / 10;
      Diagnostics d;
      std::string where;
      try {
        const Scenario s = test::load(test::kBase, {r.path + "=" + written(r, v)});
        d = validate(s);
      } catch (const ScenarioError& e) {
        d = e.diagnostics();   // refused while loading (world-size limits): also a refusal
      }
      bool named = false;
      for (const auto& x : d.items()) named = named || (x.severity == Severity::Error && x.path == r.path);
      EXPECT_TRUE(named) << r.path << " = " << written(r, v) << " was not refused";
      ++checked;
    }
  }
  EXPECT_GE(checked, 30);
}

TEST(FieldRanges, InRangeEndsAreAccepted) {
  const Scenario s = test::load(test::kBase, {"cluster.intra_node.bandwidth=0.001 GB/s",
                                              "cluster.inter_node.latency=10 s", "cluster.efficiency.gemm=0.001",
                                              "cluster.gpu=h100-sxm", "cluster.gpu.memory=1 MB"});
  EXPECT_FALSE(validate(s).has_errors()) << format_diagnostics(validate(s), "t.yaml");
}

TEST(Feasibility, DuplicateFaultsAndDeadNodesAreRefused) {
  const Scenario dup = test::load(test::kBase, {"cluster.faults=[{node: 0, nic: 2, bandwidth_factor: 0.5}, "
                                                "{node: 0, nic: 2, failed: true}]"});
  const Diagnostics d = check_feasibility(dup);
  ASSERT_TRUE(d.has_errors());
  EXPECT_EQ(d.items().front().path, "cluster.faults[1].nic");
  // One node: failing all its NICs is harmless (nothing leaves the node).
  std::string all = "cluster.faults=[";
  for (int i = 0; i < 8; ++i) all += std::string(i ? ", " : "") + "{node: 0, nic: " + std::to_string(i) + ", failed: true}";
  all += "]";
  EXPECT_FALSE(check_feasibility(test::load(test::kBase, {all})).has_errors());
  const Scenario two = test::load(test::kBase, {all, "cluster.nodes=2"});
  EXPECT_TRUE(check_feasibility(two).has_errors());
}

TEST(Feasibility, TaskEstimateBoundsTheRealGraphAndAcceptsLargeRealRuns) {
  // The 1,024-rank a2a+p2p [8,128] case of docs/performance.md (1.6 M tasks for 4 layers, forward).
  const Scenario big = test::load(test::kBase, {"cluster.nodes=128", "model.context_parallel_size=1024",
                                                "model.cp_comm_type=a2a+p2p",
                                                "model.hierarchical_context_parallel_sizes=[8,128]",
                                                "simulation.layers=4", "simulation.passes=[forward]"});
  const double est = estimated_graph_tasks(big);
  EXPECT_GE(est, 1.6e6);
  EXPECT_LT(est, kMaxGraphTasks);
  EXPECT_FALSE(check_feasibility(big).has_errors());
}

TEST(Diagnostics, KeepsAtMostTheCapAndCountsTheRest) {
  Diagnostics d;
  for (int i = 0; i < 250; ++i) d.error("p", "e" + std::to_string(i));
  for (int i = 0; i < 5; ++i) d.warning("p", "w");
  EXPECT_EQ(d.error_count(), Diagnostics::kMaxKept);
  EXPECT_EQ(d.warning_count(), 5u);
  EXPECT_EQ(d.dropped(), 150u);
  const std::string text = format_diagnostics(d, "f.yaml");
  EXPECT_NE(text.find("150 more diagnostics not shown"), std::string::npos);
  Diagnostics both;
  both.append(d);
  both.append(d);
  EXPECT_EQ(both.error_count(), Diagnostics::kMaxKept);
  EXPECT_EQ(both.dropped(), 150u + 150u + 100u);
}

}  // namespace
}  // namespace hcpsim
