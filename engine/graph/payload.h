#pragma once
// What a task does to real data, for the reference executor (engine/reference/). Filled by the
// schedule builders only when GraphOptions::with_payloads is set; the timing backends ignore it.
//
// Data model: every rank owns named tensors [B][L][H][D] (B = batch, or slots x batch for
// communication staging buffers; L tokens; H heads; D head dim). A buffer is named by
// (BufName, layer, version) and written exactly once (static single assignment), so a task that
// reads a buffer whose producer is not one of its ancestors is caught by the executor.
#include <cstdint>
#include <vector>

namespace hcpsim {

// Buffer names. Inputs (given by the data loader): Q, K, V, DOut. Results compared with dense
// attention: Out, DQ, DK, DV. Everything else is an intermediate of a schedule.
enum class BufName : std::uint16_t {
  Q, K, V, DOut, Out, DQ, DK, DV,                     // per-layer inputs and results
  LevelQ, LevelK, LevelV, LevelDOut, LevelOut,        // after the a2a level (ring/attention input)
  LevelDQ, LevelDK, LevelDV, LevelDKV,                // ring/attention gradients before the a2a back
  Send, Recv,                                         // a2a / collective staging (version = tensor)
  KV, StepOut, StepLse, Lse,                          // forward ring: KV_i, out_i, lse_i, merged lse
  BwdKV, BwdDq, BwdDkv, Dq, Dkv, RecvDkv,             // backward ring
  Gathered, FullKV, FullDkv,                          // all_gather
  IndexQ, IndexK, IndexW, TopK                        // DSA: indexer inputs (loader), top-k keep mask
};

// Packs (name, layer, version) into one key.
constexpr std::uint64_t buffer_key(BufName n, int layer, int version) {
  return (static_cast<std::uint64_t>(static_cast<std::uint16_t>(n)) << 48) |
         (static_cast<std::uint64_t>(static_cast<std::uint16_t>(layer)) << 32) |
         static_cast<std::uint32_t>(version);
}

enum class PayloadOp : std::uint8_t {
  None,
  Concat,           // out0 = [in0 | in1] along D (KV concat)
  Add,              // out0 = in0 + in1; with one input: out0 = in0 (copy)
  HeadSplit,        // a2a before: [b][s][H][D] -> [A][b][s][H/A][D]     args: A, col0, ncol
  ChunksToNatural,  // [A][b][s][H][D] -> [b][A*s][H][D] (early halves, then late halves reversed)   args: A
  NaturalToChunks,  // inverse of ChunksToNatural                          args: A, col0, ncol
  HeadMerge,        // a2a after: [A][b][s][H][D] -> [b][s][A*H][D]        args: A
  AttnFwd,          // in: q, kv -> out0 = out (q rows), out1 = lse   args: q_off, q_len, kv_off, kv_len, causal
                    // (q, k, v separately; a 4th input is a DSA keep mask [b][Lq][1][Lk])
  AttnBwd,          // in: q, kv, out, dout, lse -> out0 = dq (q rows), out1 = dkv (kv rows)   args as AttnFwd
                    // (q, k, v separately: out0 dq, out1 dk, out2 dv; a 7th input is a keep mask)
  LseMerge,         // out0 = log(exp(in0) + exp(in1)); with one input: copy
  OutCorrection,    // in: lse, out_0, lse_0, out_1, lse_1, ... -> out0 = sum_k exp(lse_k - lse) out_k
  SendRecv,         // comm: in[k] is sent to args[0] (dst rank), out[k] is received from args[1] (src rank)
  AllToAll,         // comm: in0 [n][..] slot j goes to member j, arrives in out0 slot (my index)
  AllGather,        // comm: in0 goes to slot (my index) of out0 on every member
  ReduceScatter,    // comm: out0 = sum over members of their in0 slot (my index)
  // HyperParallel (contiguous sequence shards, engine/schedule/hp_*.cpp):
  SlotsToSequence,  // [A][b][s][H][D] -> [b][A*s][H][D], slot m becomes tokens [m*s, (m+1)*s)   args: A
  SequenceToSlots,  // inverse of SlotsToSequence                          args: A, col0, ncol
  TokenSlice,       // out0 = in0 tokens [off, off+len)                    args: off, len
  TokenConcat,      // out0 = [in0 ; in1] along the tokens
  IndexerTopK       // DSA: in: index q [b][Lq][n][d], index k [b][Lk][1][d], weights [b][Lq][n][1] ->
                    // out0 = keep mask [b][Lq][1][Lk] (1 for the top-k keys of each query)   args: q_pos0, topk, causal
};

struct TaskPayload {
  PayloadOp op = PayloadOp::None;
  std::vector<std::uint64_t> in;    // buffer keys read
  std::vector<std::uint64_t> out;   // buffer keys written
  std::vector<std::int64_t> args;   // op-specific integers (see PayloadOp)
};

}  // namespace hcpsim
