#pragma once
// DistFlashAttn's load-balanced causal ring (cp_comm_type: dfa; docs/schedules.md "DistFlashAttn").
//
// P = CP size, CP rank p holds chunk p of the sequence (contiguous, one chunk per rank). A causal
// layer needs the blocks (q, j) with j <= q. m = floor(P/2) time steps follow the local diagonal
// block of step 0:
//   step t >= 1, rank p >= t : computes its own block (p, p - t) with K/V fetched from rank p - t
//   step t >= 1, rank p <  t : helper while t <= H = P - 1 - m: computes (p + P - t, p) for the busy
//                              rank q = p + P - t with that rank's Q fetched, and returns the partial
//                              output and its softmax statistics (forward) or dQ (backward)
//   otherwise                : idle (only for even P, the ranks p < m at step m)
// Every block is computed once; each rank computes m + 1 blocks (odd P) or m or m + 1 (even P).
//
// Exchange k (k = 0..m, issued at the start of step k; one batched send/recv per rank and CP group)
// carries what step k + 1 needs (K/V to rank p + k + 1, or Q to the helper p + k + 1 - P) and the
// results of step k - 1 (helper outputs back to their owner; in backward also the dK/dV of the
// fetched K/V back to its owner). Exchange m + 1 returns the results of the last step when it has any.
#include "engine/schedule/schedule_context.h"

namespace hcpsim::schedule {

enum class DfaRole { Local, Help, Idle };

// What CP rank p computes at step t of a ring of P ranks: block (q_owner, kv_owner).
struct DfaWork {
  DfaRole role = DfaRole::Idle;
  int q_owner = -1;    // whose queries
  int kv_owner = -1;   // whose keys and values
};

int dfa_last_step(int P);        // m = floor(P/2)
int dfa_last_help_step(int P);   // H = P - 1 - floor(P/2)
DfaWork dfa_work(int P, int p, int t);

// The peers of rank p in exchange k: where the fetch for step k + 1 goes (-1: none) and comes from,
// and where the step k - 1 results go and come from. `backward` adds dK/dV returns of local blocks.
struct DfaPeers {
  int fetch_to = -1, fetch_from = -1;
  bool fetch_to_helper = false, fetch_from_owner = false;   // Q (not K/V) travels
  int result_to = -1, result_from = -1;                     // helper output (dQ) -> query owner
  int dkv_to = -1, dkv_from = -1;                           // backward: dK/dV -> K/V owner
};
DfaPeers dfa_peers(int P, int p, int k, bool backward);
// Number of exchanges of a pass: m + 1, plus one when step m has results to return.
int dfa_exchanges(int P, bool backward);

// Version of the Lse buffer that holds a rank's merged softmax LSE after the forward (the backward reads it).
int dfa_final_lse_version();

// Appends the forward / backward of the context's layer on every CP group.
void build_dfa_forward(ScheduleContext& ctx);
void build_dfa_backward(ScheduleContext& ctx);

}  // namespace hcpsim::schedule
