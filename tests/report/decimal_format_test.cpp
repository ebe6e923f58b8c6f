// The trace file's numbers (engine/trace/decimal_format.h) against printf itself: random times and
// counts over many magnitudes, exact halves (ties to even), whole numbers, the edges of the integer
// fast paths and the values that take the general path.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/trace/decimal_format.h"

namespace hcpsim {
namespace {

std::string printf_fixed(double v, int decimals) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string printf_general17(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string fixed(double v, int decimals) {
  char buf[hcpsim::kMaxFixedChars];
  return std::string(buf, hcpsim::format_fixed(buf, v, decimals));
}

std::string general17(double v) {
  char buf[hcpsim::kMaxGeneral17Chars];
  return std::string(buf, hcpsim::format_general17(buf, v));
}

// Values a trace holds and values at the edges of the fast paths.
std::vector<double> edge_values() {
  std::vector<double> v = {0.0, -0.0, 1.0, 0.5, 1e-6, 5e-7, 4.9999999999999998e-7, 1e-7, 1e-22, 1e-30,
                           std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::min(),
                           std::ldexp(1.0, 52), std::ldexp(1.0, 52) - 1, std::ldexp(1.0, 53), std::ldexp(1.0, 53) + 2,
                           std::ldexp(1.0, 64), 1.8e13, 1.9e13, 1e17, 1e300, std::numeric_limits<double>::max(),
                           -1.0, -1e-6, -123.456, 0.1, 0.2, 0.3, 2.675, 1.0000005, 999999.9999995};
  // Exact ties at six decimals: n/128 for odd n is a multiple of 10^-6 plus exactly half of it.
  for (int n = 1; n < 4000; n += 2) v.push_back(n / 128.0);
  for (int n = 1; n < 200; n += 2) v.push_back(std::ldexp(static_cast<double>(n), -7) + 1e6);
  for (int k = -60; k <= 60; ++k) v.push_back(std::ldexp(1.0, k));
  return v;
}

TEST(DecimalFormat, FixedMatchesPrintfOnEdges) {
  for (const double x : edge_values())
    for (int d = 0; d <= 9; ++d) ASSERT_EQ(fixed(x, d), printf_fixed(x, d)) << "value " << x << ", " << d << " decimals";
}

TEST(DecimalFormat, General17MatchesPrintfOnEdges) {
  for (const double x : edge_values()) ASSERT_EQ(general17(x), printf_general17(x)) << "value " << x;
}

TEST(DecimalFormat, FixedMatchesPrintfOnRandomTimes) {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-12, 14);
  std::uniform_int_distribution<std::uint64_t> any_bits;
  for (int i = 0; i < 400000; ++i) {
    // Seconds times 1e6 as the trace writer forms them, and arbitrary positive doubles.
    const double us = mantissa(rng) * std::pow(10.0, exponent(rng)) * 1e-6 * 1e6;
    ASSERT_EQ(fixed(us, 6), printf_fixed(us, 6)) << "value " << us;
    const double raw = std::abs(std::bit_cast<double>(any_bits(rng)));
    if (std::isfinite(raw)) {
      ASSERT_EQ(fixed(raw, 6), printf_fixed(raw, 6)) << "bits of " << raw;
    }
  }
}

TEST(DecimalFormat, General17MatchesPrintfOnRandomCounts) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> whole(0, std::uint64_t{1} << 54);
  std::uniform_real_distribution<double> real(0.0, 1e18);
  for (int i = 0; i < 400000; ++i) {
    const double w = static_cast<double>(whole(rng));
    ASSERT_EQ(general17(w), printf_general17(w)) << "value " << w;
    const double r = real(rng) / std::pow(10.0, i % 20);
    ASSERT_EQ(general17(r), printf_general17(r)) << "value " << r;
  }
}

}  // namespace
}  // namespace hcpsim
