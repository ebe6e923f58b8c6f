#pragma once
// CostModel: FLOPs -> seconds and bytes -> seconds for one scenario's hardware (GPU preset,
// `cluster.efficiency`, calibration file, faults). Shared by every timing backend so that analytic
// and simgrid agree exactly where there is no contention. Formulas: docs/metrics.md.
#include <memory>
#include <string>
#include <string_view>

#include "engine/cost/gemm_efficiency.h"
#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

enum class LinkClass { IntraNode, InterNode };
struct NcclP2pComm;
struct Calibration;

class CostModel {
 public:
  explicit CostModel(const Scenario& s);
  ~CostModel();
  CostModel(CostModel&&) noexcept;
  CostModel& operator=(CostModel&&) noexcept;

  // Seconds a compute/copy task takes alone on its GPU (attention by shape with short-chunk
  // fall-off, GEMMs, copies/merges/corrections by HBM bytes), including straggler slowdowns.
  double compute_seconds(const TaskGraph& g, const Task& t) const;
  // The same with the attention efficiency of an attention task given (what attention_efficiency
  // returns for its pass and shape; ignored for other tasks): TaskCostMemo computes it once per shape.
  double compute_seconds(const TaskGraph& g, const Task& t, double attention_eff) const;
  // Fraction of the nominal link bandwidth a message of `message_bytes` reaches on a link class
  // (plateau efficiency x small-message fall-off, or the calibration table).
  double link_efficiency(double message_bytes, LinkClass c) const;
  // Same for a flow of NCCL op `op` (SendRecv, AllToAll, AllGather, ReduceScatter, AllReduce): the
  // op's own curve when the `bandwidth_curves` term is on, else the send/recv curve.
  double link_efficiency(TaskKind op, double message_bytes, LinkClass c) const;
  // Efficiency (fraction of `route_Bps`, the route's nominal bottleneck bandwidth) of one send/recv
  // flow of `message_bytes` on a route of class `c` inside NCCL communicator `comm`. Without the
  // `nccl_p2p_channels` term, or with a calibration table for the class: link_efficiency(SendRecv,
  // m, c). With it: min(link level, NCCL's channels x per-channel rate / route_Bps) x the send/recv
  // small-message bend, where the network's link level is inter_node_link itself (the term prices
  // the per-peer cap that the fitted network send/recv ratio of section 9.2 stands for otherwise).
  double p2p_efficiency(double message_bytes, LinkClass c, double route_Bps, const NcclP2pComm& comm) const;
  // The NCCL communicator of send/recv op `op` as NCCL's channel rules see it: its members, the
  // nodes they span, and the GPUs' NVLinks (docs/metrics.md section 9.10).
  NcclP2pComm p2p_comm(const CommOp& op) const;
  // Plateau of that curve: the fraction of the nominal bandwidth NCCL op `op` reaches on large
  // messages (the curve's level, or the calibration table's value at its largest message). The
  // `nccl_ring_latency` term prices ring collectives with it, their per-call latency apart.
  double link_plateau(TaskKind op, LinkClass c) const;
  // Fraction of its GPU's compute throughput that communication task `t` takes from concurrent
  // kernels while it runs: NCCL channels / SMs + weight * NCCL HBM traffic / HBM bandwidth
  // (`comm_compute_interference`; 0 when the term is off or `t` is not communication).
  double comm_compute_load(const TaskGraph& g, const Task& t) const;
  // The same with the task's link class given (what link_class_of returns for it).
  double comm_compute_load(const TaskGraph& g, const Task& t, LinkClass c) const;
  // The same with the send/recv op's NCCL communicator already known (p2p_comm of the task's op), as
  // TaskCostMemo passes it: p2p_comm walks the op's members, once per op instead of once per task.
  double comm_compute_load(const TaskGraph& g, const Task& t, LinkClass c, const NcclP2pComm* p2p) const;
  // Seconds a communication task lasts beyond its transfers: NCCL launch for every call, plus the
  // ring loop's host synchronisation for a send/recv ring step (`host_overheads`; 0 when off).
  double comm_overhead_s(const Task& t) const;
  // Link class of communication task `t`: inter-node when any peer of its call sits on another node.
  LinkClass link_class_of(const TaskGraph& g, const Task& t) const;
  const ModelTerms& terms() const;
  // One-way latency of a link class, seconds (per hop as configured in the scenario).
  double latency_s(LinkClass c) const;
  // The scenario as the model uses it (calibrated term parameters applied where the user set none).
  const Scenario& scenario() const;
  // The calibration file's tables (empty when the scenario names none).
  const Calibration& calibration() const;

  // Fraction of bf16 peak an attention kernel of this shape reaches: the calibration table where it
  // covers the shape, else the published table of the GPU (`attention_shapes`), else plateau x
  // short-chunk fall-off. A plateau the user set keeps its level: a table only scales it by the
  // shape's ratio to the table's own plateau (docs/metrics.md "Where each efficiency comes from").
  double attention_efficiency(Pass p, const AttentionShape& s) const;
  // Fraction of its precision's peak a GEMM of `flops` FLOPs reaches without a shape: the
  // calibration table, else cluster.efficiency.gemm.
  double gemm_efficiency(double flops) const;
  // The same for the GEMM task labelled `label` in precision `p`: with the `gemm_shapes` term, a
  // published fit for the GPU and no calibration table, the fit at the task's shape (gemm_shape_of;
  // a cube of the same FLOPs when the label has none), its plateau replaced by efficiency.gemm when
  // the user set that; else as above.
  double gemm_efficiency(double flops, std::string_view label, GemmPrecision p) const;
  // The precision a GEMM task runs in: FP8 with model.fp8 on a GPU with FP8 peak, except (with the
  // `fp8_work` term) the GEMMs outside Transformer Engine's modules (fp8_rates.h), which stay BF16.
  GemmPrecision gemm_precision(std::string_view label) const;
  // Fixed cost added to every compute/copy kernel, seconds.
  double kernel_overhead_s() const;
  // Product of the straggler slowdowns of `rank` (1 when none).
  double straggler_slowdown(int rank) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hcpsim
