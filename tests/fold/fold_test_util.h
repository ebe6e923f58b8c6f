#pragma once
// Helpers of the folding tests: small jobs with replicas, and the check that a folded run reports
// what the unfolded run of the same job reports.
#include <gtest/gtest.h>

#include <string>

#include "engine/app/simulate.h"
#include "tests/support/llama3_models.h"

namespace hcpsim::test {

// Llama-3-8B shape, whole layer (ffn given), one layer forward + backward, `nodes` nodes of 8 GPUs,
// p2p ring; data-parallel size is what the GPUs leave.
inline Scenario fold_job(int nodes, int tp, int cp, int pp, const std::string& backend) {
  Scenario s = scenario_of_shape(kLlama3_8B);
  s.name = "fold-test";
  s.model.seq_length = 6144;   // a multiple of 2 x cp for cp 2, 4, 6, 8
  s.model.tensor_model_parallel_size = tp;
  s.model.context_parallel_size = cp;
  s.model.pipeline_model_parallel_size = pp;
  s.model.sequence_parallel = tp > 1;
  s.model.cp_comm_type = {CpCommType::P2P};
  s.cluster.nodes = nodes;
  s.cluster.gpus_per_node = 8;
  s.cluster.nics_per_node = 8;
  s.simulation.backend = backend;
  const int dp = nodes * 8 / (tp * cp * pp);
  s.train.micro_batch_size = 1;
  s.train.global_batch_size = dp * 2 * pp;
  return s;
}

inline void expect_close(double folded, double unfolded, const char* what) {
  EXPECT_NEAR(folded, unfolded, 1e-9 * std::max(1e-12, std::abs(unfolded))) << what;
}

// Every number of the report that stands for the whole job is the same folded and unfolded.
inline void expect_same_report(const Report& f, const Report& u) {
  expect_close(f.attention_forward_s, u.attention_forward_s, "attention_forward_s");
  expect_close(f.attention_backward_s, u.attention_backward_s, "attention_backward_s");
  expect_close(f.layer_forward_s, u.layer_forward_s, "layer_forward_s");
  expect_close(f.layer_backward_s, u.layer_backward_s, "layer_backward_s");
  expect_close(f.exposed_comm_forward_s, u.exposed_comm_forward_s, "exposed_comm_forward_s");
  expect_close(f.exposed_comm_backward_s, u.exposed_comm_backward_s, "exposed_comm_backward_s");
  expect_close(f.attention_forward_tflops_per_gpu, u.attention_forward_tflops_per_gpu, "forward TFLOP/s");
  expect_close(f.attention_backward_tflops_per_gpu, u.attention_backward_tflops_per_gpu, "backward TFLOP/s");
  expect_close(f.makespan_s, u.makespan_s, "makespan_s");
  expect_close(f.step_s, u.step_s, "step_s");
  expect_close(f.overlap_fraction, u.overlap_fraction, "overlap_fraction");
  expect_close(f.bytes_intra_node, u.bytes_intra_node, "bytes_intra_node");
  expect_close(f.bytes_inter_node, u.bytes_inter_node, "bytes_inter_node");
  expect_close(f.compute_busy_s, u.compute_busy_s, "compute_busy_s");
  expect_close(f.comm_busy_s, u.comm_busy_s, "comm_busy_s");
  expect_close(f.critical_path_compute_s, u.critical_path_compute_s, "critical_path_compute_s");
  expect_close(f.critical_path_comm_s, u.critical_path_comm_s, "critical_path_comm_s");
  expect_close(f.critical_path_idle_s, u.critical_path_idle_s, "critical_path_idle_s");
  EXPECT_EQ(f.slowest_rank, u.slowest_rank);
  EXPECT_EQ(f.slowest_rank_wait, u.slowest_rank_wait);
  EXPECT_EQ(f.cluster_world_size, u.cluster_world_size);
  ASSERT_EQ(f.layers.size(), u.layers.size());
  for (std::size_t i = 0; i < f.layers.size(); ++i) {
    EXPECT_EQ(f.layers[i].slowest_rank_forward, u.layers[i].slowest_rank_forward);
    EXPECT_EQ(f.layers[i].slowest_rank_backward, u.layers[i].slowest_rank_backward);
  }
  ASSERT_EQ(f.critical_path.size(), u.critical_path.size());
  for (std::size_t i = 0; i < f.critical_path.size(); ++i) {
    EXPECT_EQ(f.critical_path[i].rank, u.critical_path[i].rank) << "critical path entry " << i;
    EXPECT_EQ(f.critical_path[i].name, u.critical_path[i].name) << "critical path entry " << i;
    expect_close(f.critical_path[i].end_s, u.critical_path[i].end_s, "critical path end");
  }
  ASSERT_TRUE(f.step.has_value() && u.step.has_value());
  expect_close(f.step->time_s, u.step->time_s, "step time");
  expect_close(f.step->tokens_per_s, u.step->tokens_per_s, "tokens/s");
}

struct FoldedPair {
  SimulationResult folded, unfolded;
};

inline FoldedPair run_both(const Scenario& s, Backend& backend) {
  SimulateOptions fold, all;
  fold.keep_events = all.keep_events = false;
  all.replicas_once = false;
  return {simulate_scenario(s, backend, fold), simulate_scenario(s, backend, all)};
}

}  // namespace hcpsim::test
