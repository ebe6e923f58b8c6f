#include "gui/models/ring_steps.h"

#include <numeric>
#include <stdexcept>

#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::gui {
namespace {

// What the schedule's descriptor says (engine/schedule/schedule_descriptor.h).
bool ring_mode(CpCommType t) { return schedule::schedule_of(t).ring; }
bool hierarchical(CpCommType t) { return schedule::schedule_of(t).hierarchical(); }
bool whole_a2a(CpCommType t) { return schedule::schedule_of(t).a2a == schedule::A2aLevel::WholeCp; }

std::vector<int> range(int from, int to) {
  std::vector<int> v(static_cast<std::size_t>(std::max(0, to - from)));
  std::iota(v.begin(), v.end(), from);
  return v;
}

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace

RingStepModel::RingStepModel(const RingStepParams& p) : p_(p) {
  if (p_.cp < 1) throw std::invalid_argument("ring-step view: cp must be >= 1 (got " + std::to_string(p_.cp) + ")");
  if (!hierarchical(p_.type)) p_.a2a = 1;
  if (p_.a2a < 1 || p_.cp % p_.a2a != 0)
    throw std::invalid_argument("ring-step view: hierarchical a2a size " + std::to_string(p_.a2a) +
                                " must divide cp " + std::to_string(p_.cp));
  cells_.assign(static_cast<std::size_t>(chunks() * chunks()), BlockCell{});
  fill_cells();
}

RingStepParams RingStepModel::params_from(const Scenario& s) {
  RingStepParams p;
  p.cp = s.cp();
  p.type = s.comm_type_for_layer(0);
  p.causal = s.model.attn_mask_type == MaskType::Causal;
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  p.a2a = (hierarchical(p.type) && h.size() == 2) ? h[0] : 1;
  return p;
}

int RingStepModel::ring_size() const {
  if (ring_mode(p_.type)) return p_.cp / p_.a2a;
  return whole_a2a(p_.type) ? 1 : p_.cp;
}

int RingStepModel::step_count() const {
  if (ring_mode(p_.type)) return ring_size();
  return whole_a2a(p_.type) ? 1 : 2;
}

std::vector<int> RingStepModel::initial_chunks(int i) const { return {i, 2 * p_.cp - 1 - i}; }

RankStep RingStepModel::rank_step(int cp_index, int step) const {
  if (cp_index < 0 || cp_index >= p_.cp || step < 0 || step >= step_count())
    throw std::out_of_range("ring-step view: cp index " + std::to_string(cp_index) + " / step " +
                            std::to_string(step) + " out of range");
  const int n = chunks();
  RankStep r;
  r.cp_index = cp_index;
  if (ring_mode(p_.type)) {
    const int A = p_.a2a, P = ring_size();
    const int p = cp_index / A, a = cp_index % A;
    const auto early = [&](int q) { return range(q * A, q * A + A); };            // D_q
    const auto late = [&](int q) { return range(n - q * A - A, n - q * A); };      // D_{2P-1-q}
    r.ring_pos = p;
    r.a2a_pos = a;
    r.heads = A == 1 ? "all heads" : "heads " + std::to_string(a + 1) + "/" + std::to_string(A);
    const int j = ((p - step) % P + P) % P;
    r.kv_source = j;
    r.q_chunks = concat(early(p), late(p));
    r.kv_chunks_held = concat(early(j), late(j));
    if (!p_.causal) {
      r.section = MaskSection::Full;
      r.q_chunks_used = r.q_chunks;
      r.kv_chunks_used = r.kv_chunks_held;
    } else if (step == 0) {
      r.section = MaskSection::Diagonal;
      r.q_chunks_used = r.q_chunks;
      r.kv_chunks_used = r.kv_chunks_held;
    } else if (step <= p) {
      r.section = MaskSection::Lower;        // KV from an earlier position: only its first half
      r.q_chunks_used = r.q_chunks;
      r.kv_chunks_used = early(j);
    } else {
      r.section = MaskSection::Upper;        // KV from a later position: only our second Q half
      r.q_chunks_used = late(p);
      r.kv_chunks_used = r.kv_chunks_held;
    }
  } else if (whole_a2a(p_.type)) {
    r.ring_pos = cp_index;
    r.a2a_pos = cp_index;
    r.heads = "heads " + std::to_string(cp_index + 1) + "/" + std::to_string(p_.cp);
    r.section = p_.causal ? MaskSection::Causal : MaskSection::Full;
    r.q_chunks = range(0, n);
    r.kv_chunks_held = range(0, n);
    r.q_chunks_used = r.q_chunks;
    r.kv_chunks_used = r.kv_chunks_held;
  } else {  // all_gather: step 0 = early chunk C_i, step 1 = late chunk C_{2cp-1-i}, KV prefix
    r.ring_pos = cp_index;
    r.heads = "all heads";
    r.section = p_.causal ? MaskSection::BottomRight : MaskSection::Full;
    r.q_chunks = initial_chunks(cp_index);
    r.kv_chunks_held = range(0, n);
    const int q = step == 0 ? cp_index : n - 1 - cp_index;
    r.q_chunks_used = {q};
    r.kv_chunks_used = p_.causal ? range(0, q + 1) : range(0, n);
  }
  return r;
}

void RingStepModel::fill_cells() {
  const int n = chunks();
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) cells_[static_cast<std::size_t>(i * n + k)].partial = p_.causal && i == k;
  // Every member of one a2a block computes the same blocks for a different head slice, so the
  // matrix (per head slice) is covered by one member per ring position: a = 0.
  const int stride = ring_mode(p_.type) ? p_.a2a : 1;
  const int members = whole_a2a(p_.type) ? 1 : p_.cp;
  for (int idx = 0; idx < members; idx += stride) {
    for (int t = 0; t < step_count(); ++t) {
      const RankStep r = rank_step(idx, t);
      for (int q : r.q_chunks_used) {
        for (int k : r.kv_chunks_used) {
          if (p_.causal && k > q) continue;   // fully masked: the kernel skips it
          BlockCell& c = cells_[static_cast<std::size_t>(q * n + k)];
          c.times += 1;
          c.owner = whole_a2a(p_.type) ? -2 : r.ring_pos;
          c.step = t;
        }
      }
    }
  }
}

bool RingStepModel::every_block_once() const {
  const int n = chunks();
  for (int q = 0; q < n; ++q) {
    for (int k = 0; k < n; ++k) {
      const bool needed = !p_.causal || k <= q;
      const int times = cells_[static_cast<std::size_t>(q * n + k)].times;
      if (needed ? times != 1 : times != 0) return false;
    }
  }
  return true;
}

int RingStepModel::blocks_of_owner(int owner) const {
  int count = 0;
  for (const auto& c : cells_) count += (c.owner == owner) ? c.times : 0;
  return count;
}

}  // namespace hcpsim::gui
