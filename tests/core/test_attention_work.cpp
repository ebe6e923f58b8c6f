// The one attention work function (engine/graph/attention_work.h), with unequal head dims (DeepSeek-
// style d_qk = 192, d_v = 128), where a formula written for one head dim goes wrong.
#include <gtest/gtest.h>

#include "engine/graph/attention_work.h"

namespace hcpsim {
namespace {

TEST(AttentionWork, PairsOfEachSection) {
  EXPECT_DOUBLE_EQ(attention_pairs(MaskSection::Diagonal, 4, 4), 10);      // 4*5/2
  EXPECT_DOUBLE_EQ(attention_pairs(MaskSection::BottomRight, 2, 6), 11);   // rows see 5 and 6 keys
  EXPECT_DOUBLE_EQ(attention_pairs(MaskSection::Lower, 4, 2), 8);
}

TEST(AttentionWork, FlopsWithUnequalHeadDims) {
  // b = 2, h = 3, causal 4x4 (10 pairs), d_qk = 192, d_v = 128.
  const AttentionShape a = attention_shape(2, 4, 4, 3, 1, 192, 128, MaskSection::Diagonal);
  EXPECT_DOUBLE_EQ(a.pairs, 10);
  EXPECT_DOUBLE_EQ(attention_flops(a, Pass::Forward), 2.0 * 2 * 3 * (192 + 128) * 10);            // 38400
  EXPECT_DOUBLE_EQ(attention_flops(a, Pass::Backward), 2.0 * 2 * 3 * (3 * 192 + 2 * 128) * 10);   // 99840
  // With equal dims backward is 2.5x forward.
  const AttentionShape e = attention_shape(1, 8, 8, 1, 1, 128, 128, MaskSection::Full);
  EXPECT_DOUBLE_EQ(attention_flops(e, Pass::Backward), 2.5 * attention_flops(e, Pass::Forward));
}

}  // namespace
}  // namespace hcpsim
