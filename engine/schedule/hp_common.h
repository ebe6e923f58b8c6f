#pragma once
// Shared pieces of the HyperParallel CP schedules (docs/schedules.md "HyperParallel"): the sizes of
// a mode, the Ulysses all-to-all on the hp_ulysses groups, the K/V all-gather and the dK/dV
// reduce-scatter on the hp_colossal groups, and the attention over gathered K/V.
//
// HyperParallel shards the sequence contiguously: CP index i holds tokens [i*s, (i+1)*s), s = S/cp.
// After the Ulysses all-to-all inside a group of u adjacent CP ranks, member j holds the group's
// u*s contiguous tokens for head block j; after the all-gather across the cp/u Colossal ranks it
// holds the whole sequence of K and V in natural order.
#include <string>
#include <vector>

#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

struct HpShape {
  int u = 1;              // Ulysses degree (hp_ulysses group size)
  int co = 1;             // Colossal size cp / u (hp_colossal group size)
  std::int64_t L = 0;     // query tokens per rank after the all-to-all: u * s
  int heads = 0;          // query heads per rank after the all-to-all: h_t / u
  int kv_heads = 0;       // KV heads per rank after the all-to-all: g_t / u
};
HpShape hp_shape(const ScheduleContext& ctx);

// Position of `rank` inside its hp_colossal group (which u*s block of the sequence it queries).
int hp_colossal_index(const ScheduleContext& ctx, int rank);

// One tensor through the Ulysses all-to-all.
struct HpA2AItem {
  std::string name;     // labels perm_<name>, a2a_<name>, reord_<name>
  BufName in;
  int in_version = 0;
  BufName out;
  int out_version = 0;
  int heads = 0;        // heads of the sequence-sharded side (h_t or g_t)
  int dim = 0;
  int slot = 0;         // Send/Recv staging version, distinct per tensor and layer
};

// Sequence -> heads: main: perm (HeadSplit), nccl:a2a: all-to-all, issued from main. `finish` then
// waits for it on main and reorders the slots into one contiguous sequence (SlotsToSequence).
void hp_a2a_to_heads_issue(ScheduleContext& ctx, const HpA2AItem& it);
void hp_a2a_to_heads_finish(ScheduleContext& ctx, const HpA2AItem& it);
// Heads -> sequence (output, gradients): perm (SequenceToSlots), all-to-all, HeadMerge; synchronous.
void hp_a2a_to_sequence(ScheduleContext& ctx, const HpA2AItem& it);

// K or V all-gathered over hp_colossal (nccl:cp, issued from main) into Gathered.<gathered_version>;
// `finish` waits for it and reorders the slots into FullKV.<full_version>.
struct HpGatherItem {
  std::string name;     // "k" or "v"
  BufName in;
  int in_version = 0;
  int dim = 0;
  int gathered_version = 0;
  int full_version = 0;
  int heads = 0;        // heads of the gathered tensor; 0: the KV heads per rank after the all-to-all
};
void hp_gather_issue(ScheduleContext& ctx, const HpGatherItem& it);
void hp_gather_finish(ScheduleContext& ctx, const HpGatherItem& it);

// Full-sequence dK or dV (in) -> slots (Send.<slot>) -> reduce-scatter over hp_colossal -> out.
void hp_reduce_scatter(ScheduleContext& ctx, const std::string& name, BufName in, int in_version, int dim, int slot,
                       BufName out, int out_version);

// A point-to-point exchange with the load-balance peer (nccl:p2p, main waits): every rank sends
// `in` to `peer(rank)` and receives the peer's into `out`. A rank that is its own peer copies.
void hp_exchange(ScheduleContext& ctx, const std::string& label, GroupKind group, BufName in, int in_version,
                 BufName out, int out_version, double bytes);

// Bytes of b * tokens * heads * dim elements.
double hp_bytes(const ScheduleContext& ctx, std::int64_t tokens, int heads, int dim);

// Attention payload arguments of a kernel over all of its query rows against K/V rows [0, kv_len).
std::vector<std::int64_t> hp_tile_args(const AttentionShape& a, bool causal);

// Calls fn(rank, cp_index, cp) for every rank, CP group by CP group.
template <typename Fn>
void hp_each_rank(const ScheduleContext& ctx, Fn fn) {
  for (const auto& grp : ctx.layout.groups(GroupKind::CP))
    for (std::size_t i = 0; i < grp.size(); ++i) fn(grp[i], static_cast<int>(i), static_cast<int>(grp.size()));
}

}  // namespace hcpsim::schedule
