#pragma once
// The valid range of every numeric scenario field, checked after unit conversion (so "5e-324 GB/s",
// finite as written, is caught in bytes/s). The ranges are wide enough for any real cluster and
// narrow enough that every product the builders and backends form stays finite and in range.
// docs/scenario.md "Valid ranges" prints this table.
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct FieldRange {
  std::string path;   // dotted field path; "cluster.efficiency.*" style entries are expanded
  double lo = 0;      // inclusive, in SI base units (bytes, seconds, bytes/s, FLOP/s) or a count
  double hi = 0;      // inclusive
  const char* unit = "";          // display unit for messages and docs ("GB/s", "us", "" = a count)
  double unit_factor = 1;         // SI value = shown value * unit_factor
};

// Every bounded field, in schema order.
const std::vector<FieldRange>& field_ranges();

// A diagnostic at the position the scenario recorded for `path` (its key, or the override that set it).
void add_scenario_diagnostic(Diagnostics& d, const Scenario& s, Severity severity, const std::string& path,
                             std::string message, std::vector<std::string> hints = {});

// One error per field of `s` outside its range (or not finite).
Diagnostics check_field_ranges(const Scenario& s);

}  // namespace hcpsim
