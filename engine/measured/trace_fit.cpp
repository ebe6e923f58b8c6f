#include "engine/measured/trace_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <tuple>
#include <unordered_map>

#include "engine/app/prediction.h"
#include "engine/cost/cost_model.h"
#include "engine/cost/nccl_p2p.h"
#include "engine/cost/route.h"
#include "engine/layout/rank_layout.h"
#include "engine/measured/collective_fit.h"
#include "engine/measured/launch_fit.h"
#include "engine/measured/trace_fit_notes.h"
#include "engine/cost/efficiency_source.h"
#include "engine/schedule/build.h"
#include "engine/trace/trace.h"

namespace hcpsim {
namespace {

// What a kernel and a task are matched by: kind, and pass for attention.
using GroupKey = std::pair<MeasuredKind, MeasuredPass>;

GroupKey key_of(MeasuredKind k, MeasuredPass p) {
  const bool attention = k == MeasuredKind::AttentionForward || k == MeasuredKind::AttentionBackward;
  return {k, attention ? p : MeasuredPass::Unknown};
}

bool collective_kind(MeasuredKind k) {
  return k == MeasuredKind::AllToAll || k == MeasuredKind::AllGather || k == MeasuredKind::ReduceScatter ||
         k == MeasuredKind::AllReduce;
}

bool fitted_kind(MeasuredKind k) {
  return k == MeasuredKind::AttentionForward || k == MeasuredKind::AttentionBackward || k == MeasuredKind::Gemm ||
         k == MeasuredKind::SendRecv || collective_kind(k);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct CollectiveSamples {
  std::vector<double> efficiency, bus_Bps;
  int ranks = 0;
};

struct Samples {
  std::map<std::tuple<int, int, bool, double, double>, std::vector<double>> attention;   // pass, d, causal, q, kv
  std::map<double, std::vector<double>> gemm;                                             // flops
  std::map<double, std::vector<double>> intra, inter;                                     // bytes
  std::map<std::tuple<int, int, double>, CollectiveSamples> collectives;                  // op, link class, message
  // Link classes a collective crosses without their links setting its time: the model's value there.
  std::map<std::tuple<int, int, double>, double> unseen;
  std::size_t faster_than_peak = 0, shorter_than_overhead = 0;
  // Collectives whose kernel carries the message the profiler recorded, and those whose recorded
  // input differs from the scenario's by more than 1 % (the first such one described).
  std::size_t bytes_recorded = 0, bytes_differ = 0;
  std::string first_difference;
};

class Fitter {
 public:
  // `predicted_s`: each task's duration in the model's prediction (contention included), by task id.
  // `launch`: the overheads fitted from the same run; the fit inverts the model with the ones it writes.
  Fitter(const Scenario& s, const TaskGraph& g, std::unordered_map<TaskId, double> predicted_s,
         const LaunchOverheads& launch)
      : s_(s), g_(g), cost_(s), routes_(s, cost_), predicted_s_(std::move(predicted_s)) {
    const auto& gpu = s.cluster.gpu;
    const bool fp8 = s.fp8_enabled() && gpu.fp8_flops > 0;
    gemm_peak_ = fp8 ? gpu.fp8_flops : gpu.bf16_flops;
    attention_peak_ = fp8 && s.model.fp8_dot_product_attention ? gpu.fp8_flops : gpu.bf16_flops;
    overhead_s_ = launch.fixed_cost.samples > 0 ? launch.fixed_cost.median_s : cost_.kernel_overhead_s();
    const auto& e = cost_.scenario().cluster.efficiency;
    nccl_launch_s_ = e.nccl_launch_s;
    if (e.terms.host_overheads && launch.nccl_latency.samples > 0 && !nccl_launch_stated(s))
      nccl_launch_s_ = launch.nccl_latency.median_s;
  }
  double overhead_s() const { return overhead_s_; }
  double nccl_launch_s() const { return nccl_launch_s_; }

  // Removes the contention the model adds on its own (comm/compute interference, waiting for a peer):
  // the measured time divided by the task's predicted time over its time alone.
  double alone_s(const Task& t, double measured_s, double model_alone_s) const {
    auto it = predicted_s_.find(g_.id_of(t));
    if (it == predicted_s_.end() || !(model_alone_s > 0) || !(it->second > model_alone_s)) return measured_s;
    return measured_s * model_alone_s / it->second;
  }

  // `recorded_bytes`: the kernel's input message as the profiler recorded it, 0 when not.
  void add(const Task& t, double measured_s, double recorded_bytes, Samples& out) const {
    if (t.kind == TaskKind::SendRecv) return add_link(t, measured_s, out);
    if (is_communication(t.kind)) {
      check_recorded_bytes(t, recorded_bytes, out);
      return add_collective(t, measured_s, out);
    }
    const double work_s = alone_s(t, measured_s, cost_.compute_seconds(g_, t)) - overhead_s_;
    if (!(work_s > 0)) {
      ++out.shorter_than_overhead;
      return;
    }
    const bool attention = t.kind != TaskKind::Gemm;
    const double eff = t.flops / (work_s * (attention ? attention_peak_ : gemm_peak_));
    if (!(eff > 0)) return;
    if (eff > 1) {
      ++out.faster_than_peak;
      return;
    }
    if (!attention) {
      out.gemm[t.flops].push_back(eff);
      return;
    }
    const AttentionShape& a = g_.attention_of(t);
    const bool causal = a.section == MaskSection::Diagonal || a.section == MaskSection::Causal ||
                        a.section == MaskSection::BottomRight;
    out.attention[{static_cast<int>(t.pass), a.head_dim_qk, causal, static_cast<double>(a.q_len),
                   static_cast<double>(a.kv_len)}].push_back(eff);
  }

 private:
  // A communication task's host overhead with the fitted nccl_launch_s in place of the model's
  // (they are equal unless the host_overheads term is on and the run measured it).
  double fitted_overhead_s(double model_overhead_s) const {
    return model_overhead_s > 0 ? model_overhead_s - cost_.scenario().cluster.efficiency.nccl_launch_s + nccl_launch_s_ : 0.0;
  }

  // The call's time alone without the host overhead the model adds after it (nccl_launch_s) and
  // without its latency, against the model's bandwidth part: the efficiency that makes them equal.
  // The profiler records a collective's input tensor: all-gather a shard, reduce-scatter n shards,
  // all-reduce and all-to-all the buffer. The fit uses the scenario's bytes; a run whose recorded
  // bytes differ was not of this scenario, which is counted and said.
  void check_recorded_bytes(const Task& t, double recorded_bytes, Samples& out) const {
    if (!(recorded_bytes > 0)) return;
    const CommOp& op = g_.comms().at(t.comm);
    const double n = static_cast<double>(op.ranks.size());
    const double expected = op.kind == TaskKind::ReduceScatter ? op.bytes_per_rank * n : op.bytes_per_rank;
    ++out.bytes_recorded;
    if (std::abs(recorded_bytes / expected - 1) <= 0.01) return;
    if (out.bytes_differ++ == 0) {
      char b[160];
      std::snprintf(b, sizeof b, "%s on rank %d: recorded %.0f bytes, the scenario's %.0f", to_string(t.kind), t.rank,
                    recorded_bytes, expected);
      out.first_difference = b;
    }
  }

  void add_collective(const Task& t, double measured_s, Samples& out) const {
    const CollectiveModelTime m = collective_model_time(g_, t, routes_);
    const double model_overhead_s = cost_.comm_overhead_s(t);
    const double work_s = alone_s(t, measured_s, m.latency_s + m.bandwidth_s + model_overhead_s) - m.latency_s -
                          fitted_overhead_s(model_overhead_s);
    if (!(work_s > 0) || !(m.bandwidth_s > 0)) {
      ++out.shorter_than_overhead;
      return;
    }
    if (m.other_class) {
      const int other = m.link_class == LinkClass::InterNode ? static_cast<int>(LinkClass::IntraNode)
                                                             : static_cast<int>(LinkClass::InterNode);
      out.unseen[{static_cast<int>(m.op), other, m.message_bytes}] = m.other_efficiency;
    }
    const double eff = m.efficiency * m.bandwidth_s / work_s;
    if (eff > 1) {
      ++out.faster_than_peak;
      return;
    }
    CollectiveSamples& c = out.collectives[{static_cast<int>(m.op), static_cast<int>(m.link_class), m.message_bytes}];
    c.efficiency.push_back(eff);
    c.bus_Bps.push_back(m.bus_factor * m.nccl_size_bytes / measured_s);
    c.ranks = m.ranks;
  }

  // A send/recv task's time is set by the slowest of the transfers it sends or receives, on its route
  // (the bottleneck link, all rails of an inter-node route): eff = bytes / ((t - o - latency) x route bandwidth).
  void add_link(const Task& t, double measured_s, Samples& out) const {
    const CommOp& op = g_.comms().at(t.comm);
    const NcclP2pComm comm = cost_.p2p_comm(op);
    double slowest_s = -1, bytes = 0;
    Route route;
    for (const Transfer& x : op.transfers) {
      if (x.src != t.rank && x.dst != t.rank) continue;
      const Route r = routes_.route(x.src, x.dst);
      if (r.self) continue;
      const double time_s = routes_.p2p_transfer_seconds(r, x.bytes, comm);
      if (time_s > slowest_s) slowest_s = time_s, route = r, bytes = x.bytes;
    }
    const double model_overhead_s = cost_.comm_overhead_s(t);
    const double work_s = alone_s(t, measured_s, slowest_s + model_overhead_s) - route.latency_s -
                          fitted_overhead_s(model_overhead_s);
    if (!(slowest_s >= 0) || !(work_s > 0) || !(bytes > 0)) {
      ++out.shorter_than_overhead;
      return;
    }
    const double eff = bytes / (work_s * route.bottleneck_Bps);
    if (eff > 1) {
      ++out.faster_than_peak;
      return;
    }
    (route.link_class == LinkClass::InterNode ? out.inter : out.intra)[bytes].push_back(eff);
  }

  const Scenario& s_;
  const TaskGraph& g_;
  CostModel cost_;
  RouteModel routes_;
  std::unordered_map<TaskId, double> predicted_s_;
  double gemm_peak_ = 0, attention_peak_ = 0, overhead_s_ = 0, nccl_launch_s_ = 0;
};

// Tasks of the graph per rank and group, in task order.
std::map<int, std::map<GroupKey, std::vector<const Task*>>> tasks_by_group(const TaskGraph& g) {
  std::map<int, std::map<GroupKey, std::vector<const Task*>>> out;
  for (const Task& t : g.tasks()) {
    const MeasuredKind k = measured_kind_of(t.kind);
    if (!fitted_kind(k)) continue;
    out[t.rank][key_of(k, t.pass == Pass::Forward ? MeasuredPass::Forward : MeasuredPass::Backward)].push_back(&t);
  }
  return out;
}

const char* link_table(int link_class) {
  return link_class == static_cast<int>(LinkClass::InterNode) ? "links.inter_node" : "links.intra_node";
}

void write_tables(const Samples& s, TraceFitResult& r) {
  std::map<std::string, FittedTable> tables;   // by name, in the order of the file
  auto count = [&](const std::string& name, std::size_t samples) {
    FittedTable& t = tables[name];
    t.table = name;
    t.samples += samples;
    ++t.points;
  };
  for (const auto& [k, v] : s.attention) {
    AttentionCalibrationPoint p;
    p.pass = std::get<0>(k) == static_cast<int>(Pass::Forward) ? Pass::Forward : Pass::Backward;
    p.head_dim = std::get<1>(k);
    p.causal = std::get<2>(k);
    p.q_len = std::get<3>(k);
    p.kv_len = std::get<4>(k);
    p.efficiency = median(v);
    r.calibration.attention.push_back(p);
    count("attention", v.size());
  }
  for (const auto& [flops, v] : s.gemm) {
    r.calibration.gemm.push_back({flops, median(v)});
    count("gemm", v.size());
  }
  for (const auto& [bytes, v] : s.intra) {
    r.calibration.intra_node.push_back({"send_recv", bytes, median(v)});
    count("links.intra_node send_recv", v.size());
    note_spread("links.intra_node send_recv", bytes, v, r);
  }
  for (const auto& [bytes, v] : s.inter) {
    r.calibration.inter_node.push_back({"send_recv", bytes, median(v)});
    count("links.inter_node send_recv", v.size());
    note_spread("links.inter_node send_recv", bytes, v, r);
  }
  for (const auto& [k, c] : s.collectives) {
    const auto [op, cls, message] = k;
    const char* op_name = to_string(static_cast<TaskKind>(op));
    (cls == static_cast<int>(LinkClass::InterNode) ? r.calibration.inter_node : r.calibration.intra_node)
        .push_back({op_name, message, median(c.efficiency)});
    count(std::string(link_table(cls)) + " " + op_name, c.efficiency.size());
    note_spread(std::string(link_table(cls)) + " " + op_name, message, c.efficiency, r);
    r.collectives.push_back({op_name, link_table(cls), message, c.ranks, c.efficiency.size(), median(c.bus_Bps),
                             median(c.efficiency)});
  }
  // Without an entry of its own the model would read the class's send/recv entries for these links
  // (which may hold NCCL's per-peer cap); the trace cannot tell their rate, so the model's stays.
  for (const auto& [k, eff] : s.unseen) {
    if (s.collectives.count(k)) continue;
    const auto [op, cls, message] = k;
    const char* op_name = to_string(static_cast<TaskKind>(op));
    (cls == static_cast<int>(LinkClass::InterNode) ? r.calibration.inter_node : r.calibration.intra_node)
        .push_back({op_name, message, eff});
    char b[64];
    std::snprintf(b, sizeof b, " at %.0f bytes: %.3f", message, eff);
    r.notes.push_back(std::string(link_table(cls)) + " " + op_name + b + " is the model's own value, written so that the "
                      "model keeps it: these calls cross those links, but the other class's links set their time");
  }
  for (auto& [name, t] : tables) r.tables.push_back(std::move(t));
}

}  // namespace

TraceFitResult fit_calibration_from_trace(const Scenario& s, const MeasuredRun& run) {
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  // The model's own prediction of the run: each task's time with the contention it models.
  std::unordered_map<TaskId, double> predicted_s;
  for (const auto& e : app::predict(s, "analytic").trace.events) predicted_s[e.task] = e.end_s - e.start_s;
  const LaunchOverheads launch = fit_launch_overheads(run);
  const Fitter fitter(s, g, std::move(predicted_s), launch);
  const auto tasks = tasks_by_group(g);
  TraceFitResult r;
  Samples samples;
  std::set<std::string> left_out;
  for (const auto& mr : run.ranks) {
    auto tr = tasks.find(mr.rank);
    if (tr == tasks.end()) {
      r.notes.push_back("rank " + std::to_string(mr.rank) + " is not in the scenario's graph: its kernels are not used");
      continue;
    }
    // Measured kernels per (step, group), in time order (kernels are sorted by start).
    std::map<std::pair<int, GroupKey>, std::vector<const MeasuredKernel*>> groups;
    for (const auto& k : mr.kernels)
      if (fitted_kind(k.kind) && (mr.steps == 0 || k.step >= 0)) groups[{k.step, key_of(k.kind, k.pass)}].push_back(&k);
    for (const auto& [key, kernels] : groups) {
      auto it = tr->second.find(key.second);
      const std::size_t n = it == tr->second.end() ? 0 : it->second.size();
      if (n == 0 || kernels.size() % n != 0) {
        left_out.insert(std::string(to_string(key.second.first)) +
                        (key.second.second == MeasuredPass::Unknown ? "" : std::string(" ") + to_string(key.second.second)) +
                        " on rank " + std::to_string(mr.rank) + ": " + std::to_string(kernels.size()) +
                        " kernels per step, " + std::to_string(n) + " tasks in the graph");
        continue;
      }
      for (std::size_t i = 0; i < kernels.size(); ++i)
        fitter.add(*it->second[i % n], kernels[i]->end_s - kernels[i]->start_s, kernels[i]->bytes, samples);
    }
  }
  write_tables(samples, r);
  if (!r.tables.empty()) r.calibration.kernel_overhead_s = fitter.overhead_s();
  if (!r.tables.empty() && launch.nccl_latency.samples > 0 && !nccl_launch_stated(s))
    r.calibration.nccl_launch_s = fitter.nccl_launch_s();
  r.launch = launch;
  r.calibration.hardware = "fitted from " + std::to_string(run.ranks.size()) + " ranks of " + run.format + " traces";
  for (const auto& l : left_out) r.notes.push_back("left out (counts do not match the graph): " + l);
  if (samples.faster_than_peak > 0)
    r.notes.push_back(std::to_string(samples.faster_than_peak) +
                      " kernels ran faster than the peak allows for their task's work: the trace is not of this scenario?");
  if (samples.bytes_differ > 0)
    r.notes.push_back(std::to_string(samples.bytes_differ) + " of " + std::to_string(samples.bytes_recorded) +
                      " collectives recorded a message more than 1 % off the scenario's (" + samples.first_difference +
                      "): the run was not of this scenario? Their times were fitted with the scenario's bytes");
  else if (samples.bytes_recorded > 0)
    r.notes.push_back("the messages the profiler recorded for " + std::to_string(samples.bytes_recorded) +
                      " collectives match the scenario's");
  if (samples.shorter_than_overhead > 0)
    r.notes.push_back(std::to_string(samples.shorter_than_overhead) + " kernels were shorter than the fixed overhead or latency");
  add_model_notes(s, launch, r);
  return r;
}

}  // namespace hcpsim
