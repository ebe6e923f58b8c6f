#pragma once
// Small sums over a TaskGraph used by the accounting tests.
#include <functional>
#include <string>

#include "engine/graph/task_graph.h"

namespace hcpsim::testing {

inline double sum_over(const TaskGraph& g, const std::function<bool(const Task&)>& pick,
                       const std::function<double(const Task&)>& value) {
  double s = 0;
  for (const Task& t : g.tasks())
    if (pick(t)) s += value(t);
  return s;
}

inline int count_if(const TaskGraph& g, const std::function<bool(const Task&)>& pick) {
  int n = 0;
  for (const Task& t : g.tasks())
    if (pick(t)) ++n;
  return n;
}

constexpr double kMiB = 1048576.0;

}  // namespace hcpsim::testing
