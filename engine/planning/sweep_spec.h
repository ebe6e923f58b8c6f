#pragma once
// What a sweep runs: a base scenario, overrides for every point, and axes whose values are combined
// as a Cartesian product. An axis value is a label (what the tables show) plus the `key=value`
// overrides it stands for, so one axis can move several fields together (cp with its layout).
#include <cstddef>
#include <string>
#include <vector>

namespace hcpsim::planning {

// One value of one axis group: a label per column of the group, and the overrides it applies.
struct AxisValue {
  std::vector<std::string> labels;
  std::vector<std::string> overrides;
};

// A set of columns that vary together. `--vary key=a,b` makes a one-column group.
struct AxisGroup {
  std::vector<std::string> columns;
  std::vector<AxisValue> values;
};

struct SweepSpec {
  std::string base_path;                  // scenario file (resolved against the sweep file)
  std::vector<std::string> overrides;     // applied to every point, before the axes
  std::vector<AxisGroup> groups;
  std::string metric = "step_s";          // default sort/plot metric
  std::string backend;                    // "" = the scenario's simulation.backend
};

struct SweepPoint {
  std::size_t index = 0;                  // position in the product (row-major, first axis slowest)
  std::vector<std::string> labels;        // one per column, in column order
  std::vector<std::string> overrides;     // spec overrides, extra overrides, then axis overrides
  // Canonical identity used by --resume: "col=label;col=label".
  std::string key(const std::vector<std::string>& columns) const;
};

// Parses a --vary argument "model.context_parallel_size=2,4,8". Commas inside [...] do not split,
// so "model.hierarchical_context_parallel_sizes=[2,4],[4,2]" gives two values.
// Throws std::invalid_argument naming the argument when it has no '=' or no value.
AxisGroup parse_vary(const std::string& arg);

// The cp_layouts generator: for each cp and each comm type one point; a2a+p2p gets one point per
// split [A, cp/A] with 2 <= A < cp; "hyperparallel" (cp > 1) gets HyperParallel's modes: ulysses_degree
// unset, 1, 1 with load_balance, and each divisor 1 < u < cp. Columns "cp" and "layout" ("p2p",
// "a2a", "all_gather", "hcp A=4", "hp ulysses", "hp colossal", "hp colossal lb", "hp hybrid u=2").
// Throws std::invalid_argument on unknown comm types or cp < 1.
AxisGroup make_cp_layouts(const std::vector<int>& cps, const std::vector<std::string>& comm_types);

// Reads a sweep file (YAML: base, overrides, vary, cp_layouts, metric, backend).
// Throws std::runtime_error "FILE:LINE: field: message" on bad input.
SweepSpec load_sweep_file(const std::string& path);

// True when the YAML file at `path` is a sweep file (has a top-level `base:` key).
bool is_sweep_file(const std::string& path);

// Column names of all groups, in order.
std::vector<std::string> sweep_columns(const SweepSpec& spec);

// The Cartesian product of the groups; `extra_overrides` (command line) go after the spec's.
std::vector<SweepPoint> expand_points(const SweepSpec& spec,
                                      const std::vector<std::string>& extra_overrides);

}  // namespace hcpsim::planning
