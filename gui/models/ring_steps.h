#pragma once
// Ring-step teaching model: for one CP group, which sequence chunks each rank holds at each step and
// which blocks of the causal block matrix (2*cp x 2*cp chunks) each (ring position, step) computes.
// Derived from docs/schedules.md: the dual-chunk data layout, the ring's sections (kv source
// j = (p - t) mod P), a2a, all_gather and a2a+p2p (ring chunk D_p covers the A global chunks
// [pA, pA+A), D_{2P-1-p} covers [2cp-pA-A, 2cp-pA)).
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::gui {

struct RingStepParams {
  int cp = 2;                          // CP group size (>= 1)
  int a2a = 1;                         // A: level-0 size for a2a+p2p (1 otherwise); cp % A == 0
  CpCommType type = schedule::flat_ring_schedule().kind;   // the view reads its descriptor
  bool causal = true;
};

// What one CP rank holds and computes at one step.
struct RankStep {
  int cp_index = 0;                    // position in the flat CP group, pA + a
  int ring_pos = 0;                    // p (ring modes), cp_index otherwise
  int a2a_pos = 0;                     // a (a2a+p2p), cp_index for a2a, 0 otherwise
  int kv_source = -1;                  // ring position whose K/V is used (ring modes), else -1
  MaskSection section = MaskSection::Full;
  std::vector<int> q_chunks;           // global chunk ids of the queries it holds
  std::vector<int> kv_chunks_held;     // K/V chunks in its buffer at this step
  std::vector<int> q_chunks_used;      // queries this step's kernel reads
  std::vector<int> kv_chunks_used;     // K/V this step's kernel reads
  std::string heads;                   // which head slice, e.g. "all heads", "heads 1/4"
};

// One block (query chunk q, key chunk k) of the 2cp x 2cp matrix.
struct BlockCell {
  int owner = -1;     // ring position that computes it (ring modes), CP index (all_gather), -2 = every
                      // rank for its own head slice (a2a); -1 = never computed
  int step = -1;      // step that computes it
  int times = 0;      // how many (owner, step) pairs compute it (per head slice); 1 when correct
  bool partial = false;  // on the causal diagonal: only the lower triangle of the block is needed
};

class RingStepModel {
 public:
  // Throws std::invalid_argument naming the bad field (cp < 1, a2a not dividing cp, ...).
  explicit RingStepModel(const RingStepParams& p);
  // From a scenario's model section (cp, cp_comm_type of layer 0, hierarchical sizes, mask).
  static RingStepParams params_from(const Scenario& s);

  const RingStepParams& params() const { return p_; }
  int chunks() const { return 2 * p_.cp; }         // 2*cp global chunks C_0 .. C_{2cp-1}
  int ring_size() const;                            // P (ring modes); 1 for a2a; cp for all_gather
  int step_count() const;                           // P (ring modes), 1 (a2a), 2 (all_gather)
  // Chunks a CP index holds before any attention communication: {C_i, C_{2cp-1-i}}.
  std::vector<int> initial_chunks(int cp_index) const;
  // What CP index `cp_index` holds and computes at `step` (0 <= step < step_count()).
  RankStep rank_step(int cp_index, int step) const;
  // The whole block matrix: cells[q * chunks() + k].
  const std::vector<BlockCell>& cells() const { return cells_; }
  const BlockCell& cell(int q, int k) const { return cells_.at(static_cast<std::size_t>(q * chunks() + k)); }
  // True when every needed block (k <= q for causal, all for no_mask) is computed exactly once and no
  // masked block is computed.
  bool every_block_once() const;
  // Number of blocks computed by `owner` (summed over steps): the load-balance picture.
  int blocks_of_owner(int owner) const;

 private:
  void fill_cells();
  RingStepParams p_;
  std::vector<BlockCell> cells_;
};

}  // namespace hcpsim::gui
