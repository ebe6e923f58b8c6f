#pragma once
// One TraceEvent with the fields the report tests set, for the report and rank-index tests.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/trace/trace.h"

namespace hcpsim::test {

inline TraceEvent report_event(TaskId id, int rank, TaskKind k, Stream st, double start_s, double end_s,
                               std::string name, std::vector<std::int32_t> peers = {}, double bytes = 0,
                               double flops = 0) {
  TraceEvent e;
  e.task = id;
  e.rank = rank;
  e.kind = k;
  e.stream = st;
  e.start_s = start_s;
  e.end_s = end_s;
  e.name = std::move(name);
  e.peers = std::move(peers);
  e.bytes = bytes;
  e.flops = flops;
  return e;
}

}  // namespace hcpsim::test
