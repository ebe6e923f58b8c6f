#include "engine/core/units.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace hcpsim {

namespace {

struct Unit {
  const char* name;
  double factor;   // multiply the number by this to get SI base units
};

const std::vector<Unit>& units_of(QuantityKind k) {
  static const std::vector<Unit> bandwidth{{"GB/s", 1e9}, {"Gb/s", 1e9 / 8}, {"TB/s", 1e12},
                                           {"MB/s", 1e6}, {"GiB/s", 1073741824.0}, {"Tb/s", 1e12 / 8}};
  static const std::vector<Unit> time{{"ns", 1e-9}, {"us", 1e-6}, {"\xC2\xB5s", 1e-6},
                                      {"ms", 1e-3}, {"s", 1.0}};
  static const std::vector<Unit> size{{"MB", 1e6},  {"GB", 1e9},   {"MiB", 1048576.0},
                                      {"GiB", 1073741824.0}, {"TB", 1e12}, {"KiB", 1024.0},
                                      {"KB", 1e3}};
  static const std::vector<Unit> compute{{"TFLOPS", 1e12}, {"PFLOPS", 1e15}, {"GFLOPS", 1e9}};
  switch (k) {
    case QuantityKind::Bandwidth: return bandwidth;
    case QuantityKind::Time: return time;
    case QuantityKind::Size: return size;
    case QuantityKind::Compute: return compute;
  }
  return bandwidth;
}

// What messages say about each kind of quantity.
struct KindText {
  QuantityKind kind;
  const char* name;
  const char* accepted_units;
  const char* example;
};

constexpr KindText kKindTexts[] = {
    {QuantityKind::Bandwidth, "bandwidth", "GB/s, Gb/s, TB/s, MB/s (also GiB/s, Tb/s)", "450 GB/s"},
    {QuantityKind::Time, "time", "ns, us, ms, s", "5 us"},
    {QuantityKind::Size, "size", "MB, GB, MiB, GiB (also KB, KiB, TB)", "80 GB"},
    {QuantityKind::Compute, "compute", "TFLOPS (also GFLOPS, PFLOPS)", "989 TFLOPS"},
};

const KindText& about(QuantityKind k) {
  for (const auto& t : kKindTexts)
    if (t.kind == k) return t;
  return kKindTexts[0];
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

const char* to_string(QuantityKind k) { return about(k).name; }
const char* accepted_units(QuantityKind k) { return about(k).accepted_units; }
const char* example_quantity(QuantityKind k) { return about(k).example; }

QuantityResult parse_quantity(std::string_view text, QuantityKind kind) {
  QuantityResult r;
  const std::string_view t = trim(text);
  const std::string what = to_string(kind);
  if (t.empty()) {
    r.error = "empty " + what + " value; write a number with a unit, e.g. '" +
              example_quantity(kind) + "' (units: " + accepted_units(kind) + ")";
    return r;
  }
  // Split the leading number (strtod syntax, no hex/inf/nan) from the unit.
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  const std::size_t digits_start = i;
  while (i < t.size() && ((t[i] >= '0' && t[i] <= '9') || t[i] == '.')) ++i;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E') && i > digits_start) {
    std::size_t j = i + 1;
    if (j < t.size() && (t[j] == '+' || t[j] == '-')) ++j;
    if (j < t.size() && t[j] >= '0' && t[j] <= '9') {
      i = j;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    }
  }
  const std::string number(t.substr(0, i));
  const std::string_view unit = trim(t.substr(i));
  if (i == digits_start) {
    r.error = "'" + std::string(t) + "' is not a " + what + " (expected a number with a unit, e.g. '" +
              example_quantity(kind) + "'; units: " + accepted_units(kind) + ")";
    return r;
  }
  char* end = nullptr;
  const double v = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(v)) {
    r.error = "'" + std::string(t) + "' does not start with a valid number";
    return r;
  }
  if (unit.empty()) {
    r.error = "'" + std::string(t) + "' has no unit; a " + what + " needs one of: " +
              accepted_units(kind) + " (e.g. '" + example_quantity(kind) + "')";
    return r;
  }
  for (const auto& u : units_of(kind)) {
    if (unit == u.name) {
      if (v <= 0) {
        r.error = what + " must be positive, got '" + std::string(t) + "'";
        return r;
      }
      if (!std::isfinite(v * u.factor)) {
        r.error = "'" + std::string(t) + "' is too large to be a " + what;
        return r;
      }
      r.value = v * u.factor;
      return r;
    }
  }
  r.error = "unknown " + what + " unit '" + std::string(unit) + "' in '" + std::string(t) +
            "'; accepted units: " + accepted_units(kind);
  return r;
}

}  // namespace hcpsim
