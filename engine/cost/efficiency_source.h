#pragma once
// EfficiencySource: the value the cost model uses for one quantity (an efficiency, a link plateau, a
// term parameter) and where that value came from. The cost model fills one entry per quantity it
// resolves; a new cost-model term that refines or replaces a quantity adds its own entry. Reported
// as `efficiency_sources` in the JSON report and listed by `hcpsim simulate -v` (docs/metrics.md,
// "Where each efficiency comes from"). Plain data: no scenario or cost-model header needed.
#include <string>
#include <vector>

namespace hcpsim {

struct Scenario;

// Precedence, highest first: what the user states (scenario file or command-line override), a
// calibration file, a published table, a hardware preset, the built-in default.
enum class ValueOrigin { Scenario, Override, Calibration, PublishedTable, HardwarePreset, Default };
// "scenario", "override", "calibration", "published table", "hardware preset", "default"
const char* to_string(ValueOrigin o);
// True for Scenario and Override: a value the user set, which nothing below it may replace.
inline bool is_stated(ValueOrigin o) { return o == ValueOrigin::Scenario || o == ValueOrigin::Override; }

struct EfficiencySource {
  std::string quantity;   // "attention_forward", "gemm", "intra_node_link", ... (the scenario field's name)
  double value = 0;       // the value used at large shapes and messages (a fraction, or seconds for *_s)
  ValueOrigin origin = ValueOrigin::Default;
  // Where exactly: "line 12 of FILE", "override 2 'cluster.efficiency.gemm=0.5'", the table's name,
  // the calibration file; then what refines the value by shape or message size, if anything.
  std::string detail;
};

using EfficiencySources = std::vector<EfficiencySource>;

// "attention_forward 0.33 from scenario (line 12 of x.yaml); shape fall-off of ..." for text output.
std::string describe(const EfficiencySource& e);

// Where scenario field `path` (dotted, e.g. "cluster.efficiency.gemm") got its value: the scenario
// line or command-line override that set it, else the hardware preset that sets it (cluster.gpu.*,
// cluster.intra_node.*, cluster.inter_node.*), else the built-in default. Never Calibration or
// PublishedTable: those are the cost model's to decide.
struct FieldOrigin {
  ValueOrigin origin = ValueOrigin::Default;
  std::string detail;   // "line 12 of FILE", "override 2 'a.b=1'", "cluster preset dgx-h100", ""
};
FieldOrigin field_origin(const Scenario& s, const std::string& path);

// A stated plateau refined by a table or measured curve: the user's value scaled by the curve's
// value at this shape relative to the curve's own plateau (its value at its largest shape). The
// curve changes the shape dependence only; the level stays the user's.
inline double scale_stated_plateau(double stated_plateau, double curve_here, double curve_plateau) {
  return curve_plateau > 0 ? stated_plateau * curve_here / curve_plateau : stated_plateau;
}

}  // namespace hcpsim
