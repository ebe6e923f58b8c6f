#include "engine/trace/decimal_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <utility>

namespace hcpsim {
namespace {

// 128-bit products (GCC and Clang; __extension__ keeps -Wpedantic quiet about the type).
__extension__ typedef unsigned __int128 U128;

constexpr std::uint32_t kPow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

char* to_chars_fixed(char* out, double v, int decimals) {
  return std::to_chars(out, out + kMaxFixedChars, v, std::chars_format::fixed, decimals).ptr;
}

// v * 10^decimals rounded to the nearest integer, ties to even, computed exactly from v's binary
// value (v = m * 2^-k with m < 2^53): (m * 10^d) >> k, rounded by the bits shifted out. False when
// v is negative (or -0), at least 2^52 (k would be negative), below about 1e-22 (k >= 128), or when
// the result needs more than 64 bits; the caller then formats the slow way.
bool scaled_round(double v, std::uint32_t scale, std::uint64_t& q_out) {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  if (bits >> 63) return false;
  const int biased = static_cast<int>(bits >> 52);
  const std::uint64_t frac = bits & ((std::uint64_t{1} << 52) - 1);
  if (biased == 0 && frac == 0) {
    q_out = 0;
    return true;
  }
  const std::uint64_t m = biased == 0 ? frac : frac | (std::uint64_t{1} << 52);
  const int k = biased == 0 ? 1074 : 1075 - biased;   // v = m * 2^-k
  if (k <= 0 || k >= 128) return false;
  const U128 p = static_cast<U128>(m) * scale;   // < 2^83
  U128 q = p >> k;
  const U128 rest = p - (q << k);
  const U128 half = static_cast<U128>(1) << (k - 1);
  if (rest > half || (rest == half && (q & 1) != 0)) ++q;
  if ((q >> 64) != 0) return false;
  q_out = static_cast<std::uint64_t>(q);
  return true;
}

}  // namespace

namespace {

// The text of q / 10^decimals with `decimals` digits after the point. A compile-time `decimals`
// turns the divisions into multiplications (the trace's times all have six).
template <int kDecimals>
char* format_scaled(char* out, std::uint64_t q) {
  constexpr std::uint64_t scale = kPow10[kDecimals];
  char* p = std::to_chars(out, out + 24, q / scale).ptr;
  if constexpr (kDecimals > 0) {
    *p++ = '.';
    auto part = static_cast<std::uint32_t>(q % scale);
    for (int i = kDecimals - 1; i >= 0; --i) {
      p[i] = static_cast<char>('0' + part % 10);
      part /= 10;
    }
    p += kDecimals;
  }
  return p;
}

template <int... kDecimals>
char* format_scaled_any(char* out, std::uint64_t q, int decimals, std::integer_sequence<int, kDecimals...>) {
  char* end = out;
  ((decimals == kDecimals ? (end = format_scaled<kDecimals>(out, q), void()) : void()), ...);
  return end;
}

}  // namespace

char* format_fixed(char* out, double v, int decimals) {
  std::uint64_t q = 0;
  if (decimals < 0 || decimals > 9 || !scaled_round(v, kPow10[decimals], q)) return to_chars_fixed(out, v, decimals);
  if (decimals == 6) return format_scaled<6>(out, q);
  return format_scaled_any(out, q, decimals, std::make_integer_sequence<int, 10>{});
}

char* format_general17(char* out, double v) {
  // A whole number below 2^53 has at most 16 digits: %.17g prints it without exponent, point or
  // trailing zeros, which is the integer's own text. -0 ("-0") takes the general path.
  if (v >= 0 && v <= 9007199254740992.0 && !std::signbit(v) && v == std::floor(v))
    return std::to_chars(out, out + kMaxGeneral17Chars, static_cast<std::uint64_t>(v)).ptr;
  return std::to_chars(out, out + kMaxGeneral17Chars, v, std::chars_format::general, 17).ptr;
}

}  // namespace hcpsim
