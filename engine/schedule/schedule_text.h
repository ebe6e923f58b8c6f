#pragma once
// Small text helpers the schedules' explanations share.
#include <cstddef>
#include <cstdio>
#include <string>

namespace hcpsim::schedule {

inline constexpr double kMiB = 1024.0 * 1024.0;

// `v` with `prec` digits after the point.
inline std::string fixed_text(double v, int prec) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

// Tasks of one rank in a ring of R ranks: forward kv_concat, R-1 exchanges, R kernels, R merges,
// out_corr; backward kv_init, then per step an exchange, a kernel, dq_acc and dkv_add.
inline std::size_t ring_tasks_per_rank(std::size_t R, bool forward) { return forward ? 3 * R + 1 : 4 * R + 1; }

// Tasks of one rank for the all-to-alls of a pass: perm, a2a and reord per tensor (forward Q, K, V
// before and O after; backward dO before and dQ, dK, dV after).
inline constexpr std::size_t kA2aExchangeTasksPerRank = 4 * 3;
// Tasks of one rank in a pure a2a pass: the exchanges and the attention kernel.
inline constexpr std::size_t kA2aTasksPerRank = kA2aExchangeTasksPerRank + 1;

}  // namespace hcpsim::schedule
