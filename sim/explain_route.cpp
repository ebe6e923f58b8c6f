#include <stdexcept>
#include <string>

#include "sim/child_channel.h"
#include "sim/platform.h"
#include "sim/simgrid_backend.h"

namespace hcpsim::sim {

std::string explain_route(const Scenario& s, int rank_a, int rank_b) {
  const PlatformSpec spec = make_platform_spec(s.cluster);
  for (int r : {rank_a, rank_b})
    if (r < 0 || r >= spec.world_size())
      throw std::invalid_argument("rank " + std::to_string(r) + " does not exist (valid: 0.." +
                                  std::to_string(spec.world_size() - 1) + ")");
  const ChildOutcome out = run_in_child(
      [&](RecordWriter& w) {
        auto engine = make_engine();
        const auto hosts = build_platform(spec);
        w.text(describe_route(hosts, rank_a, rank_b));
      },
      ChildHandlers{});
  if (!out.error.empty()) throw std::runtime_error("explain_route: " + out.error + "\n" + out.child_stderr_tail);
  return out.text;
}

}  // namespace hcpsim::sim
