#pragma once
// Predicted-vs-measured comparison of an hcpsim trace with a profiled run (MeasuredRun). The two have
// no task ids in common, so they are compared by what each kernel did: per measured kind and pass,
// per rank and per step. Relative error = (predicted - measured) / measured (+: prediction slower).
// Figures are per step: the measured ones are means over the profiled steps (ProfilerStep#N / NVTX
// "step N" ranges; the whole trace is one step when it has none), the predicted ones cover the
// predicted trace (which may simulate fewer layers than the run: the counts show it).
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/measured/measured_trace.h"
#include "engine/trace/trace.h"

namespace hcpsim {

// Kernel time and count of one group, per step.
struct KindFigures {
  double predicted_s = 0, measured_s = 0;           // total kernel time per step
  double predicted_count = 0, measured_count = 0;   // kernels per step
  double predicted_mean_s() const { return predicted_count > 0 ? predicted_s / predicted_count : 0; }
  double measured_mean_s() const { return measured_count > 0 ? measured_s / measured_count : 0; }
};

// Busy time of one rank in one step: union of kernel intervals, by class.
struct BusyFigures {
  double step_s = 0;                    // first kernel start to last kernel end
  double compute_s = 0;                 // union of non-communication kernels
  double communication_s = 0;           // union of communication kernels
  double exposed_communication_s = 0;   // communication while no compute kernel runs
  // Fraction of communication time hidden under compute; NaN without communication.
  double overlap() const;
};

struct RankFigures {
  BusyFigures predicted, measured;   // measured: mean over steps
  bool in_predicted = false, in_measured = false;
};

struct NamedCount {
  std::string name;
  double count = 0;   // per step
  double time_s = 0;  // per step
};

struct MeasuredCompareResult {
  int measured_steps = 0;                  // profiled steps (largest over ranks); 0: none found
  std::size_t measured_kernels = 0;        // kernels read
  std::size_t outside_steps = 0;           // kernels outside every step range (left out)
  std::map<std::string, KindFigures> by_kind;                              // key: measured kind
  std::map<std::pair<std::string, std::string>, KindFigures> by_kind_pass;  // (kind, pass)
  std::map<int, KindFigures> by_rank;      // all kernels of a rank
  std::map<int, RankFigures> ranks;
  int slowest_predicted = -1, slowest_measured = -1;   // rank with the longest step
  std::vector<NamedCount> unmatched;       // measured kernels of kind "other", by name, most time first
  std::vector<std::string> notes;          // counts that differ, ranks in one side only, ...
};

// Mean over ranks in both sides; never throws on content (problems go to notes).
MeasuredCompareResult compare_with_measured(const Trace& predicted, const MeasuredRun& measured);

// Text and JSON writers (JSON: {"measured_steps", "by_kind": {kind: {predicted_s, measured_s,
// predicted_count, measured_count, rel_error}}, "by_kind_pass": [...], "by_rank": {...}, "ranks":
// {rank: {predicted: {step_s, compute_s, communication_s, exposed_communication_s, overlap}, measured:
// {...}}}, "slowest_rank": {predicted, measured}, "unmatched": [{name, count, time_s}], "notes": [...]}).
std::string measured_compare_to_json(const MeasuredCompareResult& r, int indent = 2);
void write_measured_compare_text(const MeasuredCompareResult& r, std::ostream& os, std::size_t max_listed = 15);

}  // namespace hcpsim
