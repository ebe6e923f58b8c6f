#pragma once
// HyperParallel's ContextParallel / AsyncContextParallel schedules (docs/schedules.md
// "HyperParallel"): pure Ulysses (u = cp), pure Colossal (u = 1) and the hybrid (1 < u < cp) are
// one builder, since the pure modes are the hybrid with one of its two levels of size 1.
#include <functional>

#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

// Forward. `with_projections`: AsyncContextParallel in whole-layer mode — this builder also adds
// the Q, K and V projection GEMMs (and the sequence-parallel TP all-gather before them) and starts
// each collective right after the projection that produces its input.
void build_hp_forward(ScheduleContext& ctx, bool with_projections);
void build_hp_backward(ScheduleContext& ctx);

// load_balance (pure Colossal): head-tail exchange of half of Q with the peer rank (hp_load_balance.cpp).
void build_hp_load_balance_forward(ScheduleContext& ctx);
void build_hp_load_balance_backward(ScheduleContext& ctx);

// The Q, K, V projections of AsyncContextParallel (hp_projections.cpp): `after_q`, `after_k` and
// `after_v` run right after each projection GEMM is queued on every rank.
// Version of Q, K, V written by the projections (version 0 is the loader's input, standing for
// the layer input); the async collectives read this version.
inline constexpr int kProjectedVersion = 1;
struct HpProjectionHooks {
  std::function<void()> after_q, after_k, after_v;
};
void add_hp_projections(ScheduleContext& ctx, const HpProjectionHooks& hooks);

}  // namespace hcpsim::schedule
