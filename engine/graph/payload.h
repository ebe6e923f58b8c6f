#pragma once
// What a task does to real data, for the reference executor (engine/reference/). Filled by the
// schedule builders; the timing backends ignore it.
#include <cstdint>
#include <vector>

namespace hcpsim {

struct TaskPayload {
  // Defined by the schedule builders together with the reference executor.
  std::vector<std::int64_t> args;
};

}  // namespace hcpsim
