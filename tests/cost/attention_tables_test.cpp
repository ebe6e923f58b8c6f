// The published attention tables: Blackwell's cuDNN rows (cudnn-frontend's GB200 measurements) are
// read as fractions of the GB200 peak, interpolated in log(length), and only for the cudnn family.
#include <gtest/gtest.h>

#include "engine/cost/attention_tables.h"

namespace hcpsim {
namespace {

TEST(AttentionTables, BlackwellCudnnReadsTheGb200Measurements) {
  // Published cells: causal forward 1574 and backward 1332 TFLOP/s at 8k on a 2500 TFLOP/s GB200.
  for (const char* gpu : {"b200", "gb200"}) {
    EXPECT_NEAR(*published_attention_efficiency(gpu, AttentionKernel::CuDNN, Pass::Forward, true, 128, 8192, 8192),
                1574.0 / 2500.0, 1e-12)
        << gpu;
    EXPECT_NEAR(*published_attention_efficiency(gpu, AttentionKernel::CuDNN, Pass::Backward, true, 128, 8192, 8192),
                1332.0 / 2500.0, 1e-12)
        << gpu;
  }
  // Non-causal 16k forward, and a length between two cells lies between them.
  EXPECT_NEAR(*published_attention_efficiency("b200", AttentionKernel::CuDNN, Pass::Forward, false, 128, 16384, 16384),
              1697.0 / 2500.0, 1e-12);
  const double mid = *published_attention_efficiency("b200", AttentionKernel::CuDNN, Pass::Forward, true, 128, 3000, 3000);
  EXPECT_GT(mid, 1097.0 / 2500.0);
  EXPECT_LT(mid, 1408.0 / 2500.0);
  // Shorter than the first cell and longer than the last: clamped.
  EXPECT_NEAR(*published_attention_efficiency("b200", AttentionKernel::CuDNN, Pass::Backward, true, 128, 512, 512),
              885.0 / 2500.0, 1e-12);
  EXPECT_NEAR(*published_attention_efficiency("b200", AttentionKernel::CuDNN, Pass::Backward, true, 128, 1 << 20, 1 << 20),
              1226.0 / 2500.0, 1e-12);
}

TEST(AttentionTables, BlackwellHasNoTableForOtherFamilies) {
  for (const AttentionKernel k : {AttentionKernel::FA2, AttentionKernel::FA3}) {
    EXPECT_FALSE(published_attention_efficiency("b200", k, Pass::Forward, true, 128, 8192, 8192).has_value());
    EXPECT_TRUE(published_attention_table("gb200", k).empty());
  }
  EXPECT_NE(published_attention_table("gb200", AttentionKernel::CuDNN).find("GB200"), std::string::npos);
  // Hopper keeps its own tables.
  EXPECT_NE(published_attention_table("h100-sxm", AttentionKernel::CuDNN).find("FlashAttention-3 paper"),
            std::string::npos);
}

}  // namespace
}  // namespace hcpsim
