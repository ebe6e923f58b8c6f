#include "engine/trace/decimal_format.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace hcpsim {
namespace {

constexpr std::uint32_t kPow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};

void append_to_chars_fixed(std::string& out, double v, int decimals) {
  char buf[352];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  out.append(buf, r.ptr);
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
  const unsigned __int128 p = static_cast<unsigned __int128>(m) * scale;   // < 2^83
  unsigned __int128 q = p >> k;
  const unsigned __int128 rest = p - (q << k);
  const unsigned __int128 half = static_cast<unsigned __int128>(1) << (k - 1);
  if (rest > half || (rest == half && (q & 1) != 0)) ++q;
  if ((q >> 64) != 0) return false;
  q_out = static_cast<std::uint64_t>(q);
  return true;
}

}  // namespace

void append_fixed(std::string& out, double v, int decimals) {
  std::uint64_t q = 0;
  if (decimals < 0 || decimals > 9 || !scaled_round(v, kPow10[decimals], q)) {
    append_to_chars_fixed(out, v, decimals);
    return;
  }
  char buf[32];
  const std::uint64_t whole = q / kPow10[decimals];
  char* p = std::to_chars(buf, buf + sizeof buf, whole).ptr;
  if (decimals > 0) {
    *p++ = '.';
    auto part = static_cast<std::uint32_t>(q % kPow10[decimals]);
    for (int i = decimals - 1; i >= 0; --i) {
      p[i] = static_cast<char>('0' + part % 10);
      part /= 10;
    }
    p += decimals;
  }
  out.append(buf, p);
}

void append_general17(std::string& out, double v) {
  char buf[40];
  // A whole number below 2^53 has at most 16 digits: %.17g prints it without exponent, point or
  // trailing zeros, which is the integer's own text. -0 ("-0") takes the general path.
  if (v >= 0 && v <= 9007199254740992.0 && !std::signbit(v) && v == std::floor(v)) {
    out.append(buf, std::to_chars(buf, buf + sizeof buf, static_cast<std::uint64_t>(v)).ptr);
    return;
  }
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17).ptr);
}

}  // namespace hcpsim
