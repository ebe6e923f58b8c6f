#pragma once
// Builders of synthetic predicted/measured trace pairs with known relative errors.
#include <string>

#include "engine/trace/trace.h"

namespace hcpsim::test {

// One event of `kind` on `rank` lasting `duration_s`, starting at `start_s`.
inline TraceEvent event(TaskId id, int rank, TaskKind kind, Pass pass, double start_s,
                        double duration_s) {
  TraceEvent e;
  e.task = id;
  e.rank = rank;
  e.kind = kind;
  e.pass = pass;
  e.start_s = start_s;
  e.end_s = start_s + duration_s;
  e.name = "task" + std::to_string(id);
  return e;
}

// Appends a predicted/measured pair whose relative error (p - m) / m is exactly `rel_error`:
// predicted lasts `measured_s * (1 + rel_error)`.
inline void add_pair(Trace& pred, Trace& meas, TaskId id, int rank, TaskKind kind, Pass pass,
                     double start_s, double measured_s, double rel_error) {
  meas.events.push_back(event(id, rank, kind, pass, start_s, measured_s));
  pred.events.push_back(event(id, rank, kind, pass, start_s, measured_s * (1.0 + rel_error)));
}

}  // namespace hcpsim::test
