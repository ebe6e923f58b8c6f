#include "engine/step/step_graph.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "engine/step/pipeline_schedule.h"
#include "engine/step/step_graph_check.h"
#include "engine/step/step_layer_template.h"
#include "engine/step/step_work.h"

namespace hcpsim::step {
namespace {

class StepGraphBuilder {
 public:
  StepGraphBuilder(const Scenario& s, const RankLayout& layout)
      : s_(s), layout_(layout), work_(step_work(s)), p_(s.pp()), v_(s.vpp()), m_(s.micro_batches()),
        lpc_(s.model.num_layers / (s.pp() * s.vpp())) {
    g_.world_size = layout.world_size();
    g_.layers = s.model.num_layers;
    g_.scenario_name = s.name;
    front_.resize(static_cast<std::size_t>(layout.world_size()));
    dp_last_.assign(static_cast<std::size_t>(layout.world_size()), kNone);
    last_send_.assign(static_cast<std::size_t>(layout.world_size()), kNone);
    last_recv_.assign(static_cast<std::size_t>(layout.world_size()), kNone);
    // stage_ranks_[stage][j]: the ranks of PP group j hold the same TP, CP and DP coordinates.
    const auto& pp_groups = layout.groups(GroupKind::PP);
    stage_ranks_.assign(static_cast<std::size_t>(p_), std::vector<int>(pp_groups.size()));
    for (std::size_t j = 0; j < pp_groups.size(); ++j)
      for (int st = 0; st < p_; ++st)
        stage_ranks_[static_cast<std::size_t>(st)][j] = pp_groups[j][static_cast<std::size_t>(st)];
    for (const auto& grp : layout.groups(GroupKind::DP_CP)) dp_groups_.push_back(grp);
    dist_ = s.ddp.use_distributed_optimizer;
    dp_ = work_.dp_group_size > 1;
  }

  TaskGraph build() {
    if (dp_ && dist_ && s_.ddp.overlap_param_gather) add_param_gather_buckets();
    run_schedule();
    finish_step();
    return std::move(g_);
  }

 private:
  // --- layer graphs ---------------------------------------------------------------------------
  // What a copied layer pass holds: the whole layer, its CP attention alone (selective
  // recomputation), or the layer without its CP attention (non_attention recomputation).
  enum class Part { Whole, AttentionOnly, WithoutAttention };
  static int template_key(CpCommType type, Part part) { return static_cast<int>(type) * 3 + static_cast<int>(part); }

  const LayerTemplate& layer_template(CpCommType type, Part part) {
    const bool attention_only = part == Part::AttentionOnly;
    const int k = template_key(type, part);
    auto& slot = templates_[k];
    if (!slot) {
      Scenario one = s_;
      one.model.cp_comm_type = {type};
      GraphOptions o;
      o.layers = 1;
      o.whole_layer = !attention_only && s_.model.ffn_hidden_size > 0;
      o.backward = part == Part::Whole;
      o.attention = part != Part::WithoutAttention;
      slot = std::make_unique<LayerTemplate>(one, layout_, o);
      attention_map_[k].assign(slot->graph().attention_shapes().size(), kNone);
    }
    return *slot;
  }

  // Copies one pass of layer `layer` for stage `st`: its first tasks on each rank wait for that
  // rank's frontier, which becomes the copy's last tasks.
  void add_layer_pass(int st, int layer, Pass pass, Part what = Part::Whole) {
    const CpCommType type = s_.comm_type_for_layer(layer);
    const LayerTemplate& t = layer_template(type, what);
    auto& amap = attention_map_[template_key(type, what)];
    const TaskGraph& tg = t.graph();
    const PassPart& part = t.part(pass, st);
    std::vector<TaskId> id(part.tasks.size());
    std::map<int, std::vector<TaskId>> exits;
    for (std::size_t i = 0; i < part.tasks.size(); ++i) {
      const Task& src = tg.task(part.tasks[i]);
      Task task = src;
      task.layer = static_cast<std::int16_t>(layer);
      task.comm = kNone;
      if (src.attention != kNone) {
        if (amap[src.attention] == kNone) amap[src.attention] = g_.add_attention(tg.attention_shapes()[src.attention]);
        task.attention = amap[src.attention];
      }
      id[i] = g_.add_task(task, tg.label(src));
      if (part.preds[i].empty()) {
        for (TaskId f : front_[static_cast<std::size_t>(src.rank)]) g_.add_dep(f, id[i]);
      } else {
        for (std::uint32_t pi : part.preds[i]) g_.add_dep(id[pi], id[i]);
      }
      if (part.is_exit[i]) exits[src.rank].push_back(id[i]);
    }
    for (std::uint32_t c : part.comms) {
      CommOp op = tg.comms()[c];
      for (TaskId& m : op.tasks) m = id[t.position(m)];
      const std::uint32_t ci = g_.add_comm(op);
      for (TaskId m : op.tasks) g_.task(m).comm = ci;
    }
    for (auto& [rank, ex] : exits) front_[static_cast<std::size_t>(rank)] = std::move(ex);
  }

  // Kernels of the step's own work (embedding, output layer) on every rank of stage `st`, in order.
  void add_kernels(int st, const std::vector<Kernel>& ks, Pass pass, int layer) {
    for (int r : stage_ranks_[static_cast<std::size_t>(st)])
      for (const Kernel& k : ks) {
        Task t;
        t.kind = k.kind;
        t.flops = k.flops;
        t.bytes = k.bytes;
        t.rank = r;
        t.pass = pass;
        t.layer = static_cast<std::int16_t>(layer);
        t.stream = Stream::Main;
        const TaskId id = g_.add_task(t, k.label);
        auto& f = front_[static_cast<std::size_t>(r)];
        for (TaskId d : f) g_.add_dep(d, id);
        f.assign(1, id);
      }
  }

  // --- communication --------------------------------------------------------------------------
  // Activations (or their gradients) from every rank of stage `from` to its peer on stage `to`,
  // after the sender's frontier; returns the receive tasks by PP group (they wait for nothing).
  std::vector<TaskId> add_p2p(int from, int to, Pass pass, int layer) {
    const bool fwd = pass == Pass::Forward;
    const auto& src = stage_ranks_[static_cast<std::size_t>(from)];
    const auto& dst = stage_ranks_[static_cast<std::size_t>(to)];
    std::vector<TaskId> recv(src.size());
    for (std::size_t j = 0; j < src.size(); ++j) {
      const Task ts{.bytes = work_.p2p_bytes, .rank = src[j], .layer = static_cast<std::int16_t>(layer),
                    .kind = TaskKind::SendRecv, .stream = Stream::NcclP2P, .pass = pass};
      Task tr = ts;
      tr.rank = dst[j];
      tr.bytes = 0;
      const TaskId send = g_.add_task(ts, fwd ? "pp_send_activation" : "pp_send_grad");
      for (TaskId d : front_[static_cast<std::size_t>(src[j])]) g_.add_dep(d, send);
      // The pipeline communicator's NCCL stream runs a rank's sends in the order they are issued.
      TaskId& prev = last_send_[static_cast<std::size_t>(src[j])];
      if (prev != kNone) g_.add_dep(prev, send);
      prev = send;
      // Without overlap_p2p_comm the send blocks its rank: the next kernel waits for the transfer.
      if (!s_.model.p2p_overlapped()) front_[static_cast<std::size_t>(src[j])].assign(1, send);
      recv[j] = g_.add_task(tr, fwd ? "pp_recv_activation" : "pp_recv_grad");
      CommOp op;
      op.kind = TaskKind::SendRecv;
      op.group = GroupKind::PP;
      op.group_index = static_cast<int>(j);
      op.ranks = {src[j], dst[j]};
      op.tasks = {send, recv[j]};
      op.transfers = {{src[j], dst[j], work_.p2p_bytes}};
      const std::uint32_t ci = g_.add_comm(std::move(op));
      g_.task(send).comm = g_.task(recv[j]).comm = ci;
    }
    return recv;
  }

  // One collective per DP x CP group of stage `st`; rank r's member waits for `after(r)` and for
  // the previous collective of its DP stream. Updates dp_last_.
  template <class After>
  void add_dp_collective(int st, TaskKind kind, double bytes_per_rank, Pass pass, int layer, const char* label,
                         After after) {
    for (std::size_t gi = 0; gi < dp_groups_.size(); ++gi) {
      const auto& grp = dp_groups_[gi];
      if (layout_.coord(grp.front()).pp != st) continue;
      CommOp op;
      op.kind = kind;
      op.group = GroupKind::DP_CP;
      op.group_index = static_cast<int>(gi);
      op.bytes_per_rank = bytes_per_rank;
      for (int r : grp) {
        Task t;
        t.kind = kind;
        t.stream = Stream::NcclCp;
        t.pass = pass;
        t.layer = static_cast<std::int16_t>(layer);
        t.rank = r;
        t.bytes = bytes_per_rank;
        const TaskId id = g_.add_task(t, label);
        for (TaskId d : after(r)) g_.add_dep(d, id);
        auto& last = dp_last_[static_cast<std::size_t>(r)];
        if (last != kNone) g_.add_dep(last, id);
        last = id;
        op.ranks.push_back(r);
        op.tasks.push_back(id);
      }
      const auto tasks = op.tasks;
      const std::uint32_t ci = g_.add_comm(std::move(op));
      for (TaskId id : tasks) g_.task(id).comm = ci;
    }
  }

  int layer_of(int st, int chunk, int i) const { return (chunk * p_ + st) * lpc_ + i; }
  int layers_per_stage() const { return lpc_ * v_; }

  // overlap_param_gather: this step's parameters gathered at its start, one bucket per layer in
  // the order the stage first uses them; the first forward of each layer waits for its bucket.
  void add_param_gather_buckets() {
    ag_bucket_.assign(static_cast<std::size_t>(layout_.world_size()), {});
    const double bytes = work_.param_gather_bytes / layers_per_stage();
    for (int st = 0; st < p_; ++st)
      for (int b = 0; b < layers_per_stage(); ++b) {
        add_dp_collective(st, TaskKind::AllGather, bytes, Pass::Forward, layer_of(st, b / lpc_, b % lpc_),
                          "param_all_gather", [](int) { return std::vector<TaskId>{}; });
        for (int r : stage_ranks_[static_cast<std::size_t>(st)])
          ag_bucket_[static_cast<std::size_t>(r)].push_back(dp_last_[static_cast<std::size_t>(r)]);
      }
  }

  // --- the pipeline ---------------------------------------------------------------------------
  using OpKey = std::tuple<bool, int, int, int>;   // forward?, micro-batch, chunk, stage

  // The op that produces the input of `op` on stage `st` (the same stage's forward for the last
  // stage's last chunk backward).
  OpKey producer(const PipelineOp& op, int st) const {
    if (op.forward) return st > 0 ? OpKey{true, op.micro_batch, op.chunk, st - 1}
                                  : OpKey{true, op.micro_batch, op.chunk - 1, p_ - 1};
    if (st < p_ - 1) return {false, op.micro_batch, op.chunk, st + 1};
    if (op.chunk == v_ - 1) return {true, op.micro_batch, op.chunk, st};
    return {false, op.micro_batch, op.chunk + 1, 0};
  }
  bool has_producer(const PipelineOp& op, int st) const { return !(op.forward && st == 0 && op.chunk == 0); }

  void run_schedule() {
    std::vector<std::vector<PipelineOp>> order(static_cast<std::size_t>(p_));
    std::size_t total = 0;
    for (int st = 0; st < p_; ++st) {
      order[static_cast<std::size_t>(st)] = schedule_order(st, p_, v_, m_);
      total += order[static_cast<std::size_t>(st)].size();
    }
    std::vector<std::size_t> next(static_cast<std::size_t>(p_), 0);
    std::size_t done = 0;
    while (done < total) {
      bool progress = false;
      for (int st = 0; st < p_; ++st) {
        auto& n = next[static_cast<std::size_t>(st)];
        const auto& ops = order[static_cast<std::size_t>(st)];
        while (n < ops.size()) {
          const PipelineOp& op = ops[n];
          if (has_producer(op, st) && built_.count(producer(op, st)) == 0) break;
          build_op(op, st);
          built_.insert({op.forward, op.micro_batch, op.chunk, st});
          ++n;
          ++done;
          progress = true;
        }
      }
      if (!progress) throw std::logic_error("build_step_graph: the pipeline schedule deadlocked");
    }
  }

  void take_inbox(const OpKey& key, int st) {
    const auto it = inbox_.find(key);
    if (it == inbox_.end()) return;
    const auto& ranks = stage_ranks_[static_cast<std::size_t>(st)];
    for (std::size_t j = 0; j < ranks.size(); ++j) {
      const auto r = static_cast<std::size_t>(ranks[j]);
      const TaskId recv = it->second[j];
      front_[r].push_back(recv);
      // Receives too run in the order the rank issues them: the order of the steps that consume them.
      if (last_recv_[r] != kNone) g_.add_dep(last_recv_[r], recv);
      last_recv_[r] = recv;
    }
    inbox_.erase(it);
  }

  void build_op(const PipelineOp& op, int st) {
    const int c = op.chunk, mb = op.micro_batch;
    take_inbox({op.forward, mb, c, st}, st);
    const bool first_stage_chunk = st == 0 && c == 0;
    const bool loss_chunk = st == p_ - 1 && c == v_ - 1;
    if (op.forward) {
      if (first_stage_chunk) add_kernels(st, work_.embedding_forward, Pass::Forward, layer_of(st, c, 0));
      for (int i = 0; i < lpc_; ++i) {
        if (!ag_bucket_.empty() && mb == 0)
          for (int r : stage_ranks_[static_cast<std::size_t>(st)])
            front_[static_cast<std::size_t>(r)].push_back(ag_bucket_[static_cast<std::size_t>(r)][static_cast<std::size_t>(c * lpc_ + i)]);
        add_layer_pass(st, layer_of(st, c, i), Pass::Forward);
        add_kernels(st, work_.layer_elementwise_forward, Pass::Forward, layer_of(st, c, i));
      }
      if (loss_chunk) {
        add_kernels(st, work_.output_forward, Pass::Forward, layer_of(st, c, lpc_ - 1));
      } else if (p_ > 1) {
        const int to = st < p_ - 1 ? st + 1 : 0, to_chunk = st < p_ - 1 ? c : c + 1;
        inbox_[{true, mb, to_chunk, to}] = add_p2p(st, to, Pass::Forward, layer_of(st, c, lpc_ - 1));
      }
      return;
    }
    if (loss_chunk) add_kernels(st, work_.output_backward, Pass::Backward, layer_of(st, c, lpc_ - 1));
    const auto& model = s_.model;
    for (int i = lpc_ - 1; i >= 0; --i) {
      const int layer = layer_of(st, c, i);
      const bool ffn = model.ffn_hidden_size > 0;
      const bool full = model.recompute_method == RecomputeMethod::Uniform || i < std::max(1, model.recompute_num_layers);
      bool elementwise = false;
      switch (model.recompute_granularity) {
        case RecomputeGranularity::None: break;
        case RecomputeGranularity::Selective: add_layer_pass(st, layer, Pass::Forward, Part::AttentionOnly); break;
        case RecomputeGranularity::SelectiveOp:
          if ((elementwise = ffn)) add_kernels(st, work_.layer_recompute_forward, Pass::Forward, layer);
          break;
        case RecomputeGranularity::NonAttention:
          if ((elementwise = ffn)) add_layer_pass(st, layer, Pass::Forward, Part::WithoutAttention);
          break;
        case RecomputeGranularity::Full:
          if ((elementwise = full)) add_layer_pass(st, layer, Pass::Forward);
          break;
      }
      if (elementwise) add_kernels(st, work_.layer_elementwise_forward, Pass::Forward, layer);
      add_layer_pass(st, layer, Pass::Backward);
      add_kernels(st, work_.layer_elementwise_backward, Pass::Backward, layer);
      if (dp_ && s_.ddp.overlap_grad_reduce && mb == m_ - 1)
        add_dp_collective(st, grad_kind(), work_.grad_reduce_bytes / layers_per_stage(), Pass::Backward, layer,
                          grad_label(), [&](int r) { return front_[static_cast<std::size_t>(r)]; });
    }
    if (first_stage_chunk) add_kernels(st, work_.embedding_backward, Pass::Backward, layer_of(st, c, 0));
    if (!first_stage_chunk && p_ > 1) {
      const int to = st > 0 ? st - 1 : p_ - 1, to_chunk = st > 0 ? c : c - 1;
      inbox_[{false, mb, to_chunk, to}] = add_p2p(st, to, Pass::Backward, layer_of(st, c, 0));
    }
  }

  TaskKind grad_kind() const { return dist_ ? TaskKind::ReduceScatter : TaskKind::AllReduce; }
  const char* grad_label() const { return dist_ ? "grad_reduce_scatter" : "grad_all_reduce"; }

  // Gradient reduction (when not overlapped), the barrier of the gradient norm, the optimizer and
  // the parameter all-gather (when not overlapped).
  void finish_step() {
    if (dp_ && !s_.ddp.overlap_grad_reduce)
      for (int st = 0; st < p_; ++st)
        add_dp_collective(st, grad_kind(), work_.grad_reduce_bytes, Pass::Backward, layer_of(st, 0, 0), grad_label(),
                          [&](int r) { return front_[static_cast<std::size_t>(r)]; });
    std::vector<TaskId> reduced;   // every rank's last task before the optimizer
    for (int r = 0; r < layout_.world_size(); ++r) {
      const auto ri = static_cast<std::size_t>(r);
      for (TaskId t : front_[ri]) reduced.push_back(t);
      if (dp_last_[ri] != kNone) reduced.push_back(dp_last_[ri]);
    }
    std::sort(reduced.begin(), reduced.end());
    reduced.erase(std::unique(reduced.begin(), reduced.end()), reduced.end());
    for (int r = 0; r < layout_.world_size(); ++r) {
      TaskId prev = kNone;
      for (const Kernel& k : work_.step_end) {   // gradient norm, Adam, FP8 weight cast
        Task t;
        t.kind = k.kind;
        t.bytes = k.bytes;
        t.rank = r;
        t.pass = Pass::Backward;
        t.layer = 0;
        const TaskId id = g_.add_task(t, k.label);
        if (prev == kNone) for (TaskId d : reduced) g_.add_dep(d, id);
        else g_.add_dep(prev, id);
        prev = id;
      }
      front_[static_cast<std::size_t>(r)].assign(1, prev);
    }
    if (dp_ && dist_ && !s_.ddp.overlap_param_gather)
      for (int st = 0; st < p_; ++st)
        add_dp_collective(st, TaskKind::AllGather, work_.param_gather_bytes, Pass::Backward, layer_of(st, 0, 0),
                          "param_all_gather", [&](int r) { return front_[static_cast<std::size_t>(r)]; });
  }

  const Scenario& s_;
  const RankLayout& layout_;
  StepWork work_;
  int p_, v_, m_, lpc_;
  bool dist_ = true, dp_ = false;
  TaskGraph g_;
  std::map<int, std::unique_ptr<LayerTemplate>> templates_;
  std::map<int, std::vector<std::uint32_t>> attention_map_;
  std::vector<std::vector<TaskId>> front_;       // by rank: the tasks the next op on that rank waits for
  std::vector<TaskId> dp_last_;                  // by rank: last collective on its DP x CP stream
  std::vector<TaskId> last_send_;                // by rank: last pipeline send on its P2P stream
  std::vector<TaskId> last_recv_;                // by rank: last pipeline receive on its P2P stream
  std::vector<std::vector<TaskId>> ag_bucket_;   // by rank: parameter all-gather buckets
  std::vector<std::vector<int>> stage_ranks_;
  std::vector<std::vector<int>> dp_groups_;
  std::map<OpKey, std::vector<TaskId>> inbox_;   // receive tasks waiting for their consumer op
  std::set<OpKey> built_;
};

}  // namespace

TaskGraph build_step_graph(const Scenario& s, const RankLayout& layout, const StepGraphOptions& options) {
  check_step_graph(s, layout, options.max_tasks);
  return StepGraphBuilder(s, layout).build();
}

}  // namespace hcpsim::step
