#pragma once
// Quantities with units in scenario files: "450 GB/s", "2 us", "80 GB", "989 TFLOPS".
// Parsed values are in SI base units: bytes/s, seconds, bytes, FLOP/s.
#include <optional>
#include <string>
#include <string_view>

namespace hcpsim {

enum class QuantityKind { Bandwidth, Time, Size, Compute };

// "bandwidth", "time", "size", "compute"
const char* to_string(QuantityKind k);
// The units a kind accepts, for messages: "GB/s, Gb/s, TB/s, MB/s".
const char* accepted_units(QuantityKind k);
// An example value for hints, e.g. "450 GB/s".
const char* example_quantity(QuantityKind k);

struct QuantityResult {
  std::optional<double> value;   // SI base units; empty on error
  std::string error;             // why it could not be parsed (names the accepted units)
};

// Parses "<number> <unit>" (space optional). A bare number, an unknown unit, a non-finite or
// non-positive value is an error. Units are case-sensitive (Gb/s is bits, GB/s bytes).
QuantityResult parse_quantity(std::string_view text, QuantityKind kind);

}  // namespace hcpsim
