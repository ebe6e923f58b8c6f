#include "engine/measured/measured_as_trace.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/measured/gzip_stream.h"
#include "engine/measured/nsys_reader.h"

namespace hcpsim {

namespace {
// Above any predicted graph's ids (a graph of a million tasks is large), so task-id matching finds none.
constexpr TaskId kFirstMeasuredTaskId = 0x80000000u;
}  // namespace

Trace measured_step_as_trace(const MeasuredRun& run, int step, std::size_t* left_out,
                             std::vector<MeasuredOnlyEvent>* others) {
  Trace t;
  t.scenario = "measured: " + std::to_string(run.ranks.size()) + " ranks of " + run.format + " traces, step " +
               std::to_string(step + 1);
  t.backend = "measured";
  t.world_size = run.world_size;
  std::size_t dropped = 0;
  bool found = false;
  for (const auto& r : run.ranks) {
    const bool whole = r.steps == 0;
    if (!whole && step >= r.steps) continue;
    if (whole && step != 0) continue;
    double origin = std::numeric_limits<double>::infinity();
    for (const auto& k : r.kernels)
      if (whole || k.step == step) origin = std::min(origin, k.start_s);
    for (std::size_t i = 0; i < r.kernels.size(); ++i) {
      const auto& k = r.kernels[i];
      if (!whole && k.step != step) continue;
      found = true;
      const bool task_kind = static_cast<int>(k.kind) < kTaskKindCount;
      if (!task_kind) ++dropped;
      if (!task_kind && !others) continue;
      TraceEvent e;
      e.task = kFirstMeasuredTaskId + static_cast<TaskId>(t.events.size() + (others ? others->size() : 0));
      e.rank = r.rank;
      const auto s = r.streams.find(k.stream);
      e.stream = s == r.streams.end() ? Stream::Main : s->second;
      if (task_kind) e.kind = static_cast<TaskKind>(k.kind);
      e.pass = k.pass == MeasuredPass::Backward ? Pass::Backward : Pass::Forward;
      e.start_s = k.start_s - origin;
      e.end_s = k.end_s - origin;
      e.bytes = k.bytes;
      e.name = run.names[k.name];
      if (task_kind) t.events.push_back(std::move(e));
      else others->push_back({std::move(e), k.kind});
    }
  }
  if (!found) throw std::invalid_argument("the measured run has no profiled step " + std::to_string(step + 1));
  if (left_out) *left_out = dropped;
  return t;
}

bool is_profiler_trace_file(const std::string& path) {
  if (is_sqlite_file(path)) return true;
  std::string head;
  try {
    head = read_file_head(path, 4096);
  } catch (const std::exception&) {
    return false;
  }
  for (const char* key : {"\"schemaVersion\"", "\"distributedInfo\"", "\"deviceProperties\""})
    if (head.find(key) != std::string::npos) return true;
  return false;
}

}  // namespace hcpsim
