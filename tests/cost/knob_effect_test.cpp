// One test per knob of cluster.efficiency.*, cluster.gpu.*, cluster.intra_node.* and
// cluster.inter_node.*, enumerated from the schema: changing the knob changes the prediction the way
// docs/scenario.md says (direction, and the amount where a closed form exists), or the knob is
// refused / warned about by name. A new knob without an entry here fails KnobTable.CoversEverySchemaKnob.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "engine/scenario/schema.h"
#include "tests/cost/knob_prediction.h"

namespace hcpsim {
namespace {

using Metric = std::function<double(const Report&)>;

enum class Expect {
  Decreases,        // metric(high) < metric(low)
  Increases,        // metric(high) > metric(low)
  Differs,          // the two predictions are not the same
  InverseRatio,     // metric(low) / metric(high) = high / low within 2 % (time inversely proportional)
  Warns,            // `high` loads with a warning naming the knob
};

struct Knob {
  std::string path;
  const char* scenario;
  std::string low, high;   // the two values set by override
  Metric metric;
  Expect expect;
  std::vector<std::string> base = {};   // overrides that set the scene (e.g. FP8 on)
};

double attention_fwd(const Report& r) { return r.attention_forward_s; }
double attention_bwd(const Report& r) { return r.attention_backward_s; }
double layer_fwd(const Report& r) { return r.layer_forward_s; }
// The layer's GEMM time on one GPU: the layer's forward less its attention (no communication).
double gemm_part(const Report& r) { return r.layer_forward_s - r.attention_forward_s; }
double memory_capacity(const Report& r) { return r.memory ? r.memory->capacity_bytes_per_gpu : 0.0; }
double step_time(const Report& r) { return r.step ? r.step->time_s : 0.0; }

std::vector<Knob> knobs() {
  using test::kRingComm, test::kRingCompute, test::kSingleGpu, test::kTensorParallel, test::kTwoNodes;
  const std::string e = "cluster.efficiency.", t = "cluster.efficiency.model_terms.";
  const std::string all_gather = "model.cp_comm_type=all_gather";
  return {
      {e + "attention_forward", kSingleGpu, "0.3", "0.6", attention_fwd, Expect::InverseRatio},
      {e + "attention_backward", kSingleGpu, "0.3", "0.6", attention_bwd, Expect::InverseRatio},
      {e + "gemm", kSingleGpu, "0.4", "0.8", gemm_part, Expect::InverseRatio},
      {e + "memory", kRingComm, "0.3", "0.9", attention_fwd, Expect::Decreases},
      {e + "intra_node_link", kRingComm, "0.4", "0.9", attention_fwd, Expect::Decreases},
      {e + "inter_node_link", kTwoNodes, "0.4", "0.9", attention_fwd, Expect::Decreases},
      {e + "attention_kernel", kRingCompute, "fa2", "fa3", attention_fwd, Expect::Decreases},
      {e + "comm_hbm_interference", kRingCompute, "0", "5", attention_fwd, Expect::Increases},
      {e + "nccl_launch", kRingComm, "1 us", "50 us", attention_fwd, Expect::Increases},
      {e + "ring_step_sync", kRingComm, "1 us", "50 us", attention_fwd, Expect::Increases},
      {t + "all", kRingComm, "off", "on", attention_fwd, Expect::Differs},
      {t + "comm_compute_interference", kRingCompute, "off", "on", attention_fwd, Expect::Increases},
      {t + "bandwidth_curves", kTwoNodes, "off", "on", attention_fwd, Expect::Differs},
      {t + "host_overheads", kRingComm, "off", "on", attention_fwd, Expect::Increases},
      {t + "memory_operators", kRingComm, "off", "on", attention_fwd, Expect::Differs},
      {t + "attention_shapes", kRingCompute, "off", "on", attention_fwd, Expect::Differs},
      // Rails serve ring collectives across nodes (a CP all-gather), not the ring's one-NIC send/recv.
      {t + "nccl_rails", kTwoNodes, "off", "on", attention_fwd, Expect::Decreases, {all_gather}},
      {t + "nccl_ring_latency", kTensorParallel, "off", "on", layer_fwd, Expect::Differs},
      // Protocols differ for small messages (LL / LL128): a 64-token all-reduce.
      {t + "nccl_protocols", kTensorParallel, "off", "on", layer_fwd, Expect::Decreases, {"model.seq_length=64"}},
      {t + "nccl_p2p_channels", kTwoNodes, "off", "on", attention_fwd, Expect::Differs},
      {t + "gemm_shapes", kSingleGpu, "off", "on", gemm_part, Expect::Differs},
      {t + "fp8_work", kSingleGpu, "off", "on", step_time, Expect::Increases, {"model.fp8=hybrid"}},
      {t + "grad_norm", kSingleGpu, "off", "on", step_time, Expect::Increases},
      {"cluster.gpu.name", kSingleGpu, "h100-sxm", "b200", attention_fwd, Expect::Decreases},
      {"cluster.gpu.bf16_tflops", kSingleGpu, "400 TFLOPS", "800 TFLOPS", attention_fwd, Expect::InverseRatio},
      {"cluster.gpu.fp8_tflops", kSingleGpu, "1000 TFLOPS", "2000 TFLOPS", gemm_part, Expect::InverseRatio, {"model.fp8=hybrid", "cluster.efficiency.model_terms.fp8_work=off"}},
      {"cluster.gpu.hbm_bandwidth", kRingComm, "1 TB/s", "4 TB/s", attention_fwd, Expect::Decreases},
      {"cluster.gpu.memory", kSingleGpu, "40 GiB", "80 GiB", memory_capacity, Expect::Increases},
      {"cluster.gpu.sm_count", kRingCompute, "20", "132", attention_fwd, Expect::Decreases},
      {"cluster.intra_node.bandwidth", kRingComm, "100 GB/s", "450 GB/s", attention_fwd, Expect::Decreases},
      {"cluster.intra_node.latency", kRingComm, "1 us", "100 us", attention_fwd, Expect::Increases},
      {"cluster.intra_node.nvls", kTensorParallel, "false", "true", layer_fwd, Expect::Decreases},
      {"cluster.inter_node.nic_bandwidth", kTwoNodes, "100 Gb/s", "400 Gb/s", attention_fwd, Expect::Decreases},
      {"cluster.inter_node.nics_per_node", kTwoNodes, "1", "8", attention_fwd, Expect::Decreases, {all_gather}},
      {"cluster.inter_node.latency", kTwoNodes, "1 us", "200 us", attention_fwd, Expect::Increases},
      {"cluster.inter_node.oversubscription", kTwoNodes, "1", "8", attention_fwd, Expect::Increases},
      {"cluster.inter_node.topology", kTwoNodes, "fat-tree", "star", attention_fwd, Expect::Warns},
  };
}

// The knobs: leaves of the schema under the four hardware sections (mappings that hold other
// fields, such as cluster.efficiency.model_terms, are not knobs themselves).
std::vector<std::string> schema_knobs() {
  std::vector<std::string> out;
  const auto& all = schema::all_paths();
  for (const std::string& p : all) {
    bool section = false;
    for (const char* prefix : {"cluster.efficiency.", "cluster.gpu.", "cluster.intra_node.", "cluster.inter_node."})
      section = section || p.rfind(prefix, 0) == 0;
    const bool has_children = std::any_of(all.begin(), all.end(), [&](const std::string& q) { return q.rfind(p + ".", 0) == 0; });
    if (section && !has_children) out.push_back(p);
  }
  return out;
}

TEST(KnobTable, CoversEverySchemaKnob) {
  const auto table = knobs();
  const auto fields = schema_knobs();
  EXPECT_GE(fields.size(), 30u);   // the enumeration found the sections
  for (const std::string& f : fields)
    EXPECT_TRUE(std::any_of(table.begin(), table.end(), [&](const Knob& k) { return k.path == f; }))
        << f << " is a knob of the schema without a test in knobs()";
  for (const Knob& k : table)
    EXPECT_NE(std::find(fields.begin(), fields.end(), k.path), fields.end()) << k.path << " is not a schema knob";
}

class KnobEffect : public ::testing::TestWithParam<Knob> {};

TEST_P(KnobEffect, ChangesThePredictionAsDocumented) {
  const Knob& k = GetParam();
  auto with = [&](const std::string& value) {
    std::vector<std::string> o = k.base;
    o.push_back(k.path + "=" + value);
    return o;
  };
  if (k.expect == Expect::Warns) {
    Diagnostics w;
    test::load_knob_scenario(k.scenario, with(k.high), &w);
    bool named = false;
    for (const auto& d : w.items()) named = named || (d.severity == Severity::Warning && d.path == k.path);
    EXPECT_TRUE(named) << k.path << "=" << k.high << " must be warned about by name";
    return;
  }
  const double lo = k.metric(test::predict_knob(k.scenario, with(k.low)));
  const double hi = k.metric(test::predict_knob(k.scenario, with(k.high)));
  ASSERT_GT(lo, 0) << k.path;
  ASSERT_GT(hi, 0) << k.path;
  switch (k.expect) {
    case Expect::Decreases: EXPECT_LT(hi, lo) << k.path << ": " << k.low << " -> " << k.high; break;
    case Expect::Increases: EXPECT_GT(hi, lo) << k.path << ": " << k.low << " -> " << k.high; break;
    case Expect::Differs: EXPECT_NE(hi, lo) << k.path << ": " << k.low << " -> " << k.high; break;
    case Expect::InverseRatio: {
      // Both values are "<number>[ unit]": the ratio of the numbers.
      const double ratio = std::stod(k.high) / std::stod(k.low);
      EXPECT_NEAR(lo / hi, ratio, 0.02 * ratio) << k.path << ": " << k.low << " -> " << k.high;
      break;
    }
    case Expect::Warns: break;
  }
}

std::string knob_name(const ::testing::TestParamInfo<Knob>& info) {
  std::string n = info.param.path.substr(std::string("cluster.").size());
  for (char& c : n)
    if (c == '.') c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Schema, KnobEffect, ::testing::ValuesIn(knobs()), knob_name);

}  // namespace
}  // namespace hcpsim
