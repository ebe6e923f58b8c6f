// Kernel classification, and `compare` of a prediction with Megatron-shaped profiler traces whose
// kernel times differ from the prediction by known factors (tests/support/kineto_synth.h).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "engine/app/prediction.h"
#include "engine/compare/measured_compare.h"
#include "engine/measured/measured_as_trace.h"
#include "engine/measured/measured_input.h"
#include "engine/scenario/loader.h"
#include "tests/support/kineto_synth.h"

namespace hcpsim {
namespace {

TEST(KernelRules, BuiltInTableClassifiesRealKernelNames) {
  const KernelClassifier c;
  const std::pair<const char*, MeasuredKind> cases[] = {
      {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0", MeasuredKind::AttentionForward},
      {"cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0", MeasuredKind::AttentionBackward},
      {"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false>(Flash_fwd_params)", MeasuredKind::AttentionForward},
      {"void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128>>(Flash_bwd_params)", MeasuredKind::AttentionBackward},
      {"void cutlass::device_kernel<flash::FlashAttnFwdSm90<flash::CollectiveMainloopFwdSm90<2>>>(flash::Params)", MeasuredKind::AttentionForward},
      {"fmha_cutlassB_f16_aligned_64x64_k128_sm80(PyTorchMemEffAttention::AttentionBackwardKernel<cutlass::arch::Sm80>::Params)", MeasuredKind::AttentionBackward},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas", MeasuredKind::Gemm},
      {"nvjet_tst_192x192_64x4_2x1_v_bz_coopA_TNT", MeasuredKind::Gemm},
      {"ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", MeasuredKind::SendRecv},
      {"ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)", MeasuredKind::AllGather},
      {"ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)", MeasuredKind::ReduceScatter},
      {"ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", MeasuredKind::AllReduce},
      {"ncclKernel_Broadcast_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", MeasuredKind::OtherCommunication},
      {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>(int, at::native::CUDAFunctor_add<float>)", MeasuredKind::MemoryBound},
      {"void transformer_engine::rmsnorm::rmsnorm_fwd_tuned_kernel<256>(transformer_engine::rmsnorm::FwdParams)", MeasuredKind::MemoryBound},
      {"void transformer_engine::context_parallel::thd_out_correction_kernel<__nv_bfloat16, 128>(...)", MeasuredKind::OutCorrection},
      {"void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdam>(...)", MeasuredKind::Optimizer},
      {"Memcpy DtoD (Device -> Device)", MeasuredKind::Copy},
      {"Memset (Device)", MeasuredKind::MemoryBound},
      {"my_custom_kernel", MeasuredKind::Other},
  };
  for (const auto& [name, kind] : cases) EXPECT_EQ(c.classify(name), kind) << name;
  MeasuredKind k{};
  EXPECT_TRUE(KernelClassifier::collective_kind("all_to_all", k));
  EXPECT_EQ(k, MeasuredKind::AllToAll);
  EXPECT_TRUE(KernelClassifier::collective_kind("_allgather_base", k));
  EXPECT_EQ(k, MeasuredKind::AllGather);
  EXPECT_FALSE(KernelClassifier::collective_kind("broadcast", k));
}

TEST(KernelRules, UserRulesComeFirstAndBadOnesAreNamed) {
  const auto extra = load_kernel_rules_string(
      "kernel_rules:\n  - {match: 'my_custom', kind: attention_forward}\n  - {match: 'nvjet', kind: memory_bound}\n", "rules.yaml");
  ASSERT_EQ(extra.size(), 2u);
  EXPECT_EQ(extra[1].source, "rules.yaml:3");
  const KernelClassifier c(extra);
  EXPECT_EQ(c.classify("my_custom_kernel"), MeasuredKind::AttentionForward);
  EXPECT_EQ(c.classify("nvjet_tst_192x192"), MeasuredKind::MemoryBound);
  EXPECT_EQ(c.classify("sm90_xmma_gemm_bf16"), MeasuredKind::Gemm);
  auto error = [](const std::string& yaml) {
    try {
      load_kernel_rules_string(yaml, "rules.yaml");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  std::string e = error("kernel_rules:\n  - {match: 'x', kind: attention}\n");
  EXPECT_NE(e.find("rules.yaml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("kernel_rules[0].kind"), std::string::npos) << e;
  EXPECT_NE(e.find("attention_forward"), std::string::npos) << e;   // the valid kinds are listed
  e = error("kernel_rules:\n  - {match: '(unclosed', kind: gemm}\n");
  EXPECT_NE(e.find("not a regular expression"), std::string::npos) << e;
  e = error("kernel_rules:\n  - {match: 'x', kind: gemm, pass: forward}\n");
  EXPECT_NE(e.find("kernel_rules[0].pass"), std::string::npos) << e;
  e = error("rules: []\n");
  EXPECT_NE(e.find("kernel_rules"), std::string::npos) << e;
}

class MegatronShaped : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const Scenario s = load_scenario_file(std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml");
    predicted_ = new Trace(app::predict(s, "analytic").trace);
  }
  static void TearDownTestSuite() { delete predicted_; }
  static std::string generate(const std::string& name, const testing::KinetoSynthOptions& o) {
    const std::string dir = ::testing::TempDir() + "/hcpsim_megatron_" + name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    testing::write_kineto_traces(*predicted_, dir, o);
    return dir;
  }
  static Trace* predicted_;
};
Trace* MegatronShaped::predicted_ = nullptr;

TEST_F(MegatronShaped, KnownDeviationsAreFoundPerKindPassAndRank) {
  testing::KinetoSynthOptions o;
  o.steps = 3;
  o.time_scale[TaskKind::AttentionForward] = 1.25;   // measured 25 % slower: prediction error -20 %
  o.time_scale[TaskKind::SendRecv] = 0.8;             // measured faster: prediction error +25 %
  const MeasuredRun run = read_measured_run({generate("deviations", o)}, KernelClassifier());
  ASSERT_EQ(run.ranks.size(), 8u);
  EXPECT_EQ(run.world_size, 8);
  const MeasuredCompareResult r = compare_with_measured(*predicted_, run);
  EXPECT_EQ(r.measured_steps, 3);
  EXPECT_EQ(r.outside_steps, 0u);
  const auto& fwd = r.by_kind.at("attention_forward");
  EXPECT_NEAR(fwd.predicted_count, fwd.measured_count, 1e-9);
  EXPECT_NEAR((fwd.predicted_s - fwd.measured_s) / fwd.measured_s, 1 / 1.25 - 1, 1e-4);
  const auto& sr = r.by_kind.at("send_recv");
  EXPECT_NEAR((sr.predicted_s - sr.measured_s) / sr.measured_s, 1 / 0.8 - 1, 1e-4);
  const auto& bwd = r.by_kind.at("attention_backward");
  EXPECT_NEAR(bwd.predicted_s, bwd.measured_s, 1e-4 * bwd.measured_s);
  // Passes: attention from its kernel name, the rest from the forward / backward GPU ranges.
  EXPECT_TRUE(r.by_kind_pass.count({"send_recv", "backward"}));
  EXPECT_FALSE(r.by_kind_pass.count({"send_recv", "unknown"}));
  EXPECT_TRUE(r.unmatched.empty());
  for (const auto& [rank, f] : r.ranks) {
    EXPECT_TRUE(f.in_predicted && f.in_measured) << rank;
    EXPECT_GT(f.measured.step_s, 0);
    EXPECT_LE(f.measured.exposed_communication_s, f.measured.communication_s + 1e-12);
    EXPECT_LE(f.predicted.exposed_communication_s, f.predicted.communication_s + 1e-12);
  }
  EXPECT_GE(r.slowest_measured, 0);
  std::ostringstream text;
  write_measured_compare_text(r, text);
  EXPECT_NE(text.str().find("attention_forward"), std::string::npos);
  EXPECT_NE(measured_compare_to_json(r).find("\"exposed_communication_s\""), std::string::npos);
}

TEST_F(MegatronShaped, MoreLayersThanPredictedShowInCountsNotInKernelTimes) {
  testing::KinetoSynthOptions o;
  o.steps = 1;
  o.layers = 4;
  o.omit_distributed_info = true;   // ranks from the file names rank-R.pt.trace.json
  const MeasuredRun run = read_measured_run({generate("layers", o)}, KernelClassifier());
  ASSERT_EQ(run.ranks.size(), 8u);
  const MeasuredCompareResult r = compare_with_measured(*predicted_, run);
  const auto& fwd = r.by_kind.at("attention_forward");
  EXPECT_NEAR(fwd.measured_count, 4 * fwd.predicted_count, 1e-9);
  EXPECT_NEAR(fwd.predicted_mean_s(), fwd.measured_mean_s(), 1e-4 * fwd.measured_mean_s());
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find(" attention_forward 32/8 ") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace hcpsim

namespace hcpsim {
namespace {

TEST_F(MegatronShaped, OneProfiledStepAsATraceForTheTimeline) {
  testing::KinetoSynthOptions o;
  o.steps = 2;
  const MeasuredRun run = read_measured_run({generate("timeline", o)}, KernelClassifier());
  std::size_t left_out = 99;
  const Trace t = measured_step_as_trace(run, 1, &left_out);
  EXPECT_EQ(left_out, 0u);   // every generated kernel has an hcpsim kind
  EXPECT_EQ(t.events.size(), predicted_->events.size());
  std::map<int, double> first;
  for (const auto& e : t.events) first.try_emplace(e.rank, e.start_s).first->second = std::min(first[e.rank], e.start_s);
  for (const auto& [rank, s] : first) EXPECT_NEAR(s, 0.0, 1e-12) << rank;
  std::map<TaskKind, int> kinds_pred, kinds_meas;
  for (const auto& e : predicted_->events) ++kinds_pred[e.kind];
  for (const auto& e : t.events) ++kinds_meas[e.kind];
  EXPECT_EQ(kinds_pred, kinds_meas);
  EXPECT_THROW(measured_step_as_trace(run, 2), std::invalid_argument);
  // A public trace: memory-bound, optimizer and unclassified kernels have no hcpsim kind.
  const MeasuredRun hta = read_measured_run({std::string(HCPSIM_SOURCE_DIR) + "/tests/data/measured/hta/sampled_rank-1.json.gz"},
                                            KernelClassifier());
  measured_step_as_trace(hta, 0, &left_out);
  EXPECT_GT(left_out, 0u);
}

}  // namespace
}  // namespace hcpsim
