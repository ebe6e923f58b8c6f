#include <gtest/gtest.h>

#include "engine/core/units.h"

namespace hcpsim {
namespace {

double q(const char* s, QuantityKind k) {
  auto r = parse_quantity(s, k);
  EXPECT_TRUE(r.value.has_value()) << s << ": " << r.error;
  return r.value.value_or(-1);
}

TEST(Units, Bandwidth) {
  EXPECT_DOUBLE_EQ(q("450 GB/s", QuantityKind::Bandwidth), 450e9);
  EXPECT_DOUBLE_EQ(q("400 Gb/s", QuantityKind::Bandwidth), 50e9);   // bits: 400/8 GB/s
  EXPECT_DOUBLE_EQ(q("3.35 TB/s", QuantityKind::Bandwidth), 3.35e12);
  EXPECT_DOUBLE_EQ(q("500MB/s", QuantityKind::Bandwidth), 500e6);
}

TEST(Units, TimeSizeCompute) {
  EXPECT_DOUBLE_EQ(q("2 us", QuantityKind::Time), 2e-6);
  EXPECT_DOUBLE_EQ(q("750 ns", QuantityKind::Time), 750e-9);
  EXPECT_DOUBLE_EQ(q("1.5 ms", QuantityKind::Time), 1.5e-3);
  EXPECT_DOUBLE_EQ(q("1 s", QuantityKind::Time), 1.0);
  EXPECT_DOUBLE_EQ(q("80 GB", QuantityKind::Size), 80e9);
  EXPECT_DOUBLE_EQ(q("1 GiB", QuantityKind::Size), 1073741824.0);
  EXPECT_DOUBLE_EQ(q("2 MiB", QuantityKind::Size), 2.0 * 1048576.0);
  EXPECT_DOUBLE_EQ(q("989 TFLOPS", QuantityKind::Compute), 989e12);
  EXPECT_DOUBLE_EQ(q("1e3 TFLOPS", QuantityKind::Compute), 1e15);
}

TEST(Units, Errors) {
  auto bare = parse_quantity("450", QuantityKind::Bandwidth);
  EXPECT_FALSE(bare.value);
  EXPECT_NE(bare.error.find("has no unit"), std::string::npos);
  EXPECT_NE(bare.error.find("GB/s, Gb/s, TB/s, MB/s"), std::string::npos);
  auto unknown = parse_quantity("5 parsecs", QuantityKind::Time);
  EXPECT_NE(unknown.error.find("unknown time unit 'parsecs'"), std::string::npos);
  EXPECT_FALSE(parse_quantity("5 GB", QuantityKind::Time).value);      // wrong kind
  EXPECT_FALSE(parse_quantity("GB/s", QuantityKind::Bandwidth).value); // no number
  EXPECT_FALSE(parse_quantity("-3 us", QuantityKind::Time).value);
  EXPECT_FALSE(parse_quantity("0 GB", QuantityKind::Size).value);
  EXPECT_FALSE(parse_quantity("", QuantityKind::Size).value);
  EXPECT_FALSE(parse_quantity("450 gb/s", QuantityKind::Bandwidth).value);   // case matters (bits vs bytes)
}

}  // namespace
}  // namespace hcpsim
