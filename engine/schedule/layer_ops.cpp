// Whole-layer operations around CP attention (Megatron-Core transformer layer with TP):
//
//   forward   [SP: all_gather x] -> QKV GEMM | attention | out-proj GEMM -> all_reduce (SP: reduce_scatter)
//             -> [SP: all_gather] -> FC1 GEMM -> FC2 GEMM -> all_reduce (SP: reduce_scatter)
//   backward  [SP: all_gather dy] -> FC2 dgrad, wgrad -> FC1 dgrad, wgrad -> all_reduce (SP: reduce_scatter)
//             -> [SP: all_gather] -> out-proj dgrad, wgrad | attention backward | QKV dgrad, wgrad
//             -> all_reduce (SP: reduce_scatter)
//
// GEMMs run on the main stream, TP collectives on nccl:tp over the TP group (GroupKind::TP); with
// tp = 1 there are no collectives. Per rank the GEMMs see b*s tokens (s = S/cp) and 1/tp of each
// weight. The MLP is gated (SwiGLU, as in Llama/Qwen/GLM recipes): FC1 produces 2*ffn columns.
// FLOPs = 2 per multiply-add; backward = dgrad + wgrad, each the forward FLOPs. With
// model.tp_comm_overlap (TE userbuffers) each SP collective runs beside the token chunks of the GEMM
// next to it (LayerBuilder::gather_then, then_reduce). docs/metrics.md section 4.
#include "engine/schedule/layer_ops.h"

#include <algorithm>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "engine/cost/layer_gemms.h"
#include "engine/schedule/comm_op.h"

namespace hcpsim {
namespace {

void check(const Scenario& s, const std::vector<TaskId>& frontier, const RankLayout& layout) {
  if (s.model.ffn_hidden_size <= 0)
    throw std::invalid_argument("whole-layer ops need model.ffn_hidden_size > 0");
  if (s.model.hidden_size <= 0) throw std::invalid_argument("whole-layer ops need model.hidden_size > 0");
  if (frontier.size() != static_cast<std::size_t>(layout.world_size()))
    throw std::invalid_argument("layer ops: frontier has " + std::to_string(frontier.size()) +
                                " entries, world size is " + std::to_string(layout.world_size()));
}

class LayerBuilder {
 public:
  LayerBuilder(TaskGraph& g, const Scenario& s, const RankLayout& layout, int layer, Pass pass,
               const std::vector<TaskId>& frontier, const std::vector<std::vector<TaskId>>& waits)
      : g_(g), layout_(layout), layer_(layer), pass_(pass), sp_(s.model.sequence_parallel), d_(layer_dims_of(s)),
        frontier_(frontier), waits_(waits) {
    check(s, frontier, layout);
    overlap_ = sp_ && d_.tp > 1 && s.model.tp_comm_overlap;
    waits_.resize(frontier_.size());
  }

  void gemm(const LayerGemm& x) {
    for (int r = 0; r < layout_.world_size(); ++r) {
      Task t;
      t.rank = r;
      t.kind = TaskKind::Gemm;
      t.stream = Stream::Main;
      t.pass = pass_;
      t.layer = static_cast<std::int16_t>(layer_);
      t.flops = 2.0 * x.m * x.k * x.n;
      t.bytes = (x.m * x.k + x.k * x.n + x.m * x.n) * d_.e;
      chain(r, g_.add_task(t, x.label));
    }
  }

  // A TP collective over every TP group; `bytes_per_rank` per CommOp semantics.
  void collective(TaskKind kind, const char* label, double bytes_per_rank) {
    if (d_.tp <= 1) return;
    const auto& groups = layout_.groups(GroupKind::TP);
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& members = groups[gi];
      const double n = static_cast<double>(members.size());
      CommOp op = schedule::comm_op(kind, GroupKind::TP, gi);
      op.bytes_per_rank = bytes_per_rank;
      const auto oi = g_.add_comm(op);
      for (const int r : members) {
        Task t;
        t.rank = r;
        t.kind = kind;
        t.stream = Stream::NcclTp;
        t.pass = pass_;
        t.layer = static_cast<std::int16_t>(layer_);
        t.comm = oi;
        // What this rank sends on the NCCL ring: (n-1) shards, or 2(n-1)/n of an all-reduce buffer.
        t.bytes = kind == TaskKind::AllReduce ? 2.0 * (n - 1) / n * bytes_per_rank : (n - 1) * bytes_per_rank;
        const TaskId id = g_.add_task(t, label);
        g_.comm(oi).ranks.push_back(r);
        g_.comm(oi).tasks.push_back(id);
        chain(r, id);
      }
    }
  }

  // Gradient/activation exchange after a row-parallel GEMM (forward) or a column-parallel dgrad
  // (backward): all_reduce of the full activation, or reduce_scatter to the sequence shard with SP.
  void reduce(const char* ar_label, const char* rs_label) {
    const double full = d_.tokens * d_.hidden * d_.e;
    if (sp_) collective(TaskKind::ReduceScatter, rs_label, full / d_.tp);
    else collective(TaskKind::AllReduce, ar_label, full);
  }
  // With SP: the all_gather of the sequence shards before a column-parallel GEMM; without: nothing.
  void gather(const char* label) {
    if (sp_) collective(TaskKind::AllGather, label, d_.tokens * d_.hidden * d_.e / d_.tp);
  }

  // The sequence-parallel all-gather `label` and the GEMMs `gs` that read it. With
  // tp_comm_overlap (TE userbuffers' ring exchange), the first GEMM is split into tp chunks by
  // tokens: the first tp - 1 chunks run while the shards arrive, the last one when all have arrived.
  void gather_then(const char* label, std::initializer_list<LayerGemm> gs) {
    if (!overlap_) {
      gather(label);
      for (const LayerGemm& x : gs) gemm(x);
      return;
    }
    const std::vector<TaskId> start = frontier_;
    gather(label);
    const std::vector<TaskId> gathered = frontier_;
    frontier_ = start;
    const LayerGemm& first = *gs.begin();
    gemm(chunk(first, d_.tp - 1));
    join(gathered);
    gemm(chunk(first, 1));
    for (auto it = gs.begin() + 1; it != gs.end(); ++it) gemm(*it);
  }
  // The GEMMs `gs` and the reduction of their output (reduce()). With tp_comm_overlap, the first
  // GEMM's first chunk, then its other chunks (and the rest of `gs`) while the reduce-scatter of
  // the finished chunks runs, then the reduce-scatter of the last chunk.
  void then_reduce(std::initializer_list<LayerGemm> gs, const char* ar_label, const char* rs_label) {
    if (!overlap_) {
      for (const LayerGemm& x : gs) gemm(x);
      reduce(ar_label, rs_label);
      return;
    }
    const LayerGemm& first = *gs.begin();
    gemm(chunk(first, 1));
    const std::vector<TaskId> start = frontier_;
    gemm(chunk(first, d_.tp - 1));
    for (auto it = gs.begin() + 1; it != gs.end(); ++it) gemm(*it);
    const std::vector<TaskId> computed = frontier_;
    frontier_ = start;
    const double shard = d_.tokens * d_.hidden * d_.e / d_.tp;
    collective(TaskKind::ReduceScatter, rs_label, shard * (d_.tp - 1) / d_.tp);
    join(computed);
    collective(TaskKind::ReduceScatter, rs_label, shard / d_.tp);
  }

  Pass pass() const { return pass_; }
  const LayerDims& dims() const { return d_; }
  std::vector<TaskId> frontier() const { return frontier_; }

 private:
  void chain(int r, TaskId id) {
    const auto i = static_cast<std::size_t>(r);
    auto& f = frontier_[i];
    if (f != kNone) g_.add_dep(f, id);
    f = id;
    if (i < waits_.size()) {   // the rank's first op also waits for the pending stream waits
      for (TaskId w : waits_[i])
        if (w != id) g_.add_dep(w, id);
      waits_[i].clear();
    }
  }

  // `chunks` of the tp token chunks of GEMM `x` (same label: the shape term sees the whole GEMM).
  LayerGemm chunk(const LayerGemm& x, double chunks) const { return {x.label, x.m * chunks / d_.tp, x.k, x.n}; }
  // The next op of each rank also waits for `tasks[rank]`.
  void join(const std::vector<TaskId>& tasks) {
    for (std::size_t i = 0; i < tasks.size(); ++i)
      if (tasks[i] != kNone && tasks[i] != frontier_[i]) waits_[i].push_back(tasks[i]);
  }

  TaskGraph& g_;
  const RankLayout& layout_;
  int layer_;
  Pass pass_;
  bool sp_;   // sequence parallelism
  bool overlap_ = false;   // tp_comm_overlap
  LayerDims d_;
  std::vector<TaskId> frontier_;
  std::vector<std::vector<TaskId>> waits_;
};

// The ops of one pass that run before its attention, in execution order.
void add_before_attention(LayerBuilder& b) {
  const LayerDims& d = b.dims();
  if (b.pass() == Pass::Forward) {
    b.gather_then("tp_all_gather_qkv_in", {qkv_gemm(d)});
  } else {
    b.gather_then("tp_all_gather_mlp_grad", {dgrad_of(fc2_gemm(d), "fc2_dgrad"), wgrad_of(fc2_gemm(d), "fc2_wgrad")});
    b.then_reduce({dgrad_of(fc1_gemm(d), "fc1_dgrad"), wgrad_of(fc1_gemm(d), "fc1_wgrad")}, "tp_all_reduce_mlp_grad",
                  "tp_reduce_scatter_mlp_grad");
    b.gather_then("tp_all_gather_attn_grad",
                  {dgrad_of(out_proj_gemm(d), "out_proj_dgrad"), wgrad_of(out_proj_gemm(d), "out_proj_wgrad")});
  }
}

// The ops of one pass that run after its attention, in execution order.
void add_after_attention(LayerBuilder& b) {
  const LayerDims& d = b.dims();
  if (b.pass() == Pass::Forward) {
    b.then_reduce({out_proj_gemm(d)}, "tp_all_reduce_attn_out", "tp_reduce_scatter_attn_out");
    b.gather_then("tp_all_gather_mlp_in", {fc1_gemm(d)});
    b.then_reduce({fc2_gemm(d)}, "tp_all_reduce_mlp_out", "tp_reduce_scatter_mlp_out");
  } else {
    b.then_reduce({dgrad_of(qkv_gemm(d), "qkv_proj_dgrad"), wgrad_of(qkv_gemm(d), "qkv_proj_wgrad")},
                  "tp_all_reduce_qkv_grad", "tp_reduce_scatter_qkv_grad");
  }
}

}  // namespace

std::vector<TaskId> add_layer_ops(TaskGraph& g, const Scenario& s, const RankLayout& layout, int layer, Pass pass,
                                  LayerPart part, const std::vector<TaskId>& frontier,
                                  const std::vector<std::vector<TaskId>>& waits) {
  LayerBuilder b(g, s, layout, layer, pass, frontier, waits);
  if (part == LayerPart::BeforeAttention) add_before_attention(b);
  else add_after_attention(b);
  return b.frontier();
}

}  // namespace hcpsim
