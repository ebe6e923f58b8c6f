#pragma once
// Predicted-vs-measured comparison of two traces of the same task graph, matched by task id.
// Relative error of one task = (predicted_s - measured_s) / measured_s, where each duration is
// end_s - start_s of the task's event: positive means the prediction was too slow (overestimated),
// negative too fast. CPU-only; used by `hcpsim compare`.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/trace/trace.h"

namespace hcpsim {

// Aggregate of signed relative errors over a set of matched tasks.
struct ErrorStats {
  std::size_t count = 0;
  double mean_rel_error = 0;      // mean of the signed errors
  double mean_abs_rel_error = 0;  // mean of |error|
  double max_rel_error = 0;       // the signed error of largest magnitude (sign kept)
  double predicted_s = 0;         // sum of predicted durations
  double measured_s = 0;          // sum of measured durations
};

// One matched task.
struct TaskError {
  TaskId task = 0;
  std::int32_t rank = 0;
  TaskKind kind = TaskKind::Copy;
  Pass pass = Pass::Forward;
  std::string name;
  double predicted_s = 0;
  double measured_s = 0;
  double rel_error = 0;
};

// A task present in both traces whose identity (rank or kind) differs between them.
struct TaskMismatch {
  TaskId task = 0;
  std::string what;   // e.g. "rank 3 vs 5"
};

// Span (first start to last end) of one pass over all ranks, in both traces.
struct PassSpan {
  double predicted_s = 0;
  double measured_s = 0;
  double rel_error = 0;   // same sign convention as TaskError::rel_error
};

struct CompareOptions {
  std::size_t worst_count = 10;   // how many tasks to list in `worst`
  // Tasks whose measured duration is below this are matched but left out of the statistics
  // (a relative error of a zero-length event has no meaning); they are listed in `too_short`.
  double min_measured_s = 1e-9;
};

struct CompareResult {
  ErrorStats overall;
  std::map<std::string, ErrorStats> by_kind;   // key: to_string(TaskKind)
  std::map<std::string, ErrorStats> by_pass;   // key: "forward" / "backward"
  std::map<int, ErrorStats> by_rank;
  std::map<std::string, PassSpan> spans;       // key: pass; only passes present in both traces
  std::vector<TaskError> worst;                // largest |rel_error| first
  std::vector<TaskId> missing_in_measured;     // in predicted only
  std::vector<TaskId> missing_in_predicted;    // in measured only
  std::vector<TaskId> duplicates;              // ids with more than one event in either trace
  std::vector<TaskMismatch> mismatched;        // rank/kind differ; left out of the statistics
  std::vector<TaskId> too_short;               // measured duration < min_measured_s
  std::size_t matched = 0;                     // tasks that entered the statistics
  // True when the traces describe the same task set without mismatches.
  bool clean() const {
    return missing_in_measured.empty() && missing_in_predicted.empty() && duplicates.empty() &&
           mismatched.empty();
  }
};

// Compares two traces task by task. Never throws on content problems: they are reported in the
// result. Throws std::invalid_argument when options are invalid (min_measured_s < 0).
CompareResult compare_traces(const Trace& predicted, const Trace& measured,
                             const CompareOptions& options = {});

}  // namespace hcpsim
