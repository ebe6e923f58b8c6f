#pragma once
// Pieces shared by DistFlashAttn's forward and backward builders (dfa_schedule.h): the bytes a
// rank's chunk occupies, one rank's batched send/recv of an exchange, and running sums of partial
// gradients.
#include <cstdint>
#include <vector>

#include "engine/schedule/dfa_schedule.h"

namespace hcpsim::schedule {

// Bytes of one chunk (S/P tokens of a rank): K and V, Q (and dQ, dO, O), the fp32 softmax
// statistic of every query row and head (LSE; the forward returns two such: row max and sum).
struct DfaBytes {
  double kv, q, out, lse;
};
DfaBytes dfa_bytes(const ScheduleContext& ctx);

// What both builders start from: the CP groups and their size P, the last compute step m, the
// number of exchanges X (forward or backward), the world size W and the chunk bytes B.
struct DfaFrame {
  const std::vector<std::vector<int>>& groups;
  int P, m, X;
  std::size_t W;
  DfaBytes B;
};
DfaFrame dfa_frame(const ScheduleContext& ctx, bool backward);

// The attention shape of step `t`'s block: a whole chunk against a whole chunk, the causal diagonal
// at step 0, K/V from `w.kv_owner`.
AttentionShape dfa_block_shape(const ScheduleContext& ctx, int t, const DfaWork& w);

// Arguments of an attention block over a whole chunk of `s` tokens (causal: the diagonal block).
std::vector<std::int64_t> dfa_block_args(std::int64_t s, bool causal);

// Tensors one rank sends to one peer, or receives from one.
struct DfaMessage {
  int peer = -1;   // global rank; -1: none
  std::vector<std::uint64_t> keys;
  double bytes = 0;   // sends only
};

// Appends `rank`'s batched send/recv of exchange `k` (nccl:p2p, issued from main) to `op` and returns
// it (kNone when the rank neither sends nor receives); the caller makes main wait for it.
TaskId dfa_exchange(ScheduleContext& ctx, CommOp& op, int rank, const char* label, int k,
                  const std::vector<DfaMessage>& sends, const std::vector<DfaMessage>& receives);

// A running sum on one rank of `count` contributions (tensor lists of equal shape), written to
// `final_keys` with the last one; intermediate sums use versions of `name`.
class DfaSum {
 public:
  DfaSum() = default;
  DfaSum(int count, BufName name, std::vector<std::uint64_t> final_keys, const char* label)
      : count_(count), name_(name), final_(std::move(final_keys)), label_(label) {}
  // Adds a contribution (main stream); `bytes` is the size of the contribution's tensors together.
  void add(ScheduleContext& ctx, int rank, int step, const std::vector<std::uint64_t>& keys, double bytes);

 private:
  int count_ = 0, seen_ = 0;
  BufName name_ = BufName::Dq;
  std::vector<std::uint64_t> final_, running_;
  const char* label_ = "";
};

}  // namespace hcpsim::schedule
