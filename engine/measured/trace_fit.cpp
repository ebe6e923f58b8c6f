#include "engine/measured/trace_fit.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <set>
#include <tuple>
#include <unordered_map>

#include "engine/app/prediction.h"
#include "engine/cost/cost_model.h"
#include "engine/cost/nccl_p2p.h"
#include "engine/layout/rank_layout.h"
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

bool fitted_kind(MeasuredKind k) {
  return k == MeasuredKind::AttentionForward || k == MeasuredKind::AttentionBackward || k == MeasuredKind::Gemm ||
         k == MeasuredKind::SendRecv;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Samples {
  std::map<std::tuple<int, int, bool, double, double>, std::vector<double>> attention;   // pass, d, causal, q, kv
  std::map<double, std::vector<double>> gemm;                                             // flops
  std::map<double, std::vector<double>> intra, inter;                                     // bytes
  std::size_t faster_than_peak = 0, shorter_than_overhead = 0;
};

class Fitter {
 public:
  // `predicted_s`: each task's duration in the model's prediction (contention included), by task id.
  Fitter(const Scenario& s, const TaskGraph& g, std::unordered_map<TaskId, double> predicted_s)
      : s_(s), g_(g), cost_(s), predicted_s_(std::move(predicted_s)) {
    const auto& gpu = s.cluster.gpu;
    const bool fp8 = s.fp8_enabled() && gpu.fp8_flops > 0;
    gemm_peak_ = fp8 ? gpu.fp8_flops : gpu.bf16_flops;
    attention_peak_ = fp8 && s.model.fp8_dot_product_attention ? gpu.fp8_flops : gpu.bf16_flops;
    overhead_s_ = cost_.kernel_overhead_s();
  }
  double overhead_s() const { return overhead_s_; }

  // Removes the contention the model adds on its own (comm/compute interference, waiting for a peer):
  // the measured time divided by the task's predicted time over its time alone.
  double alone_s(const Task& t, double measured_s, double model_alone_s) const {
    auto it = predicted_s_.find(g_.id_of(t));
    if (it == predicted_s_.end() || !(model_alone_s > 0) || !(it->second > model_alone_s)) return measured_s;
    return measured_s * model_alone_s / it->second;
  }

  void add(const Task& t, double measured_s, Samples& out) const {
    if (t.kind == TaskKind::SendRecv) return add_link(t, measured_s, out);
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
  void add_link(const Task& t, double measured_s, Samples& out) const {
    std::vector<std::int32_t> peers;
    append_peers(g_, t, peers);
    const int gpn = std::max(1, s_.cluster.gpus_per_node);
    bool inter = false;
    for (auto p : peers) inter = inter || p / gpn != t.rank / gpn;
    const double bw = inter ? s_.cluster.nic_bandwidth_Bps : s_.cluster.intra_node_bandwidth_Bps;
    const double lat = inter ? s_.cluster.inter_node_latency_s : s_.cluster.intra_node_latency_s;
    const LinkClass cls = inter ? LinkClass::InterNode : LinkClass::IntraNode;
    const double model_eff = cost_.p2p_efficiency(t.bytes, cls, bw, cost_.p2p_comm(g_.comms().at(t.comm)));
    const double work_s = alone_s(t, measured_s, lat + t.bytes / (bw * model_eff)) - lat;
    if (!(work_s > 0) || !(t.bytes > 0)) {
      ++out.shorter_than_overhead;
      return;
    }
    const double eff = t.bytes / (work_s * bw);
    if (eff > 1) {
      ++out.faster_than_peak;
      return;
    }
    (inter ? out.inter : out.intra)[t.bytes].push_back(eff);
  }

  const Scenario& s_;
  const TaskGraph& g_;
  CostModel cost_;
  std::unordered_map<TaskId, double> predicted_s_;
  double gemm_peak_ = 0, attention_peak_ = 0, overhead_s_ = 0;
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

void write_tables(const Samples& s, std::size_t used[4], TraceFitResult& r) {
  for (const auto& [k, v] : s.attention) {
    AttentionCalibrationPoint p;
    p.pass = std::get<0>(k) == static_cast<int>(Pass::Forward) ? Pass::Forward : Pass::Backward;
    p.head_dim = std::get<1>(k);
    p.causal = std::get<2>(k);
    p.q_len = std::get<3>(k);
    p.kv_len = std::get<4>(k);
    p.efficiency = median(v);
    r.calibration.attention.push_back(p);
    used[0] += v.size();
  }
  for (const auto& [flops, v] : s.gemm) {
    r.calibration.gemm.push_back({flops, median(v)});
    used[1] += v.size();
  }
  for (const auto& [bytes, v] : s.intra) {
    r.calibration.intra_node.push_back({"send_recv", bytes, median(v)});
    used[2] += v.size();
  }
  for (const auto& [bytes, v] : s.inter) {
    r.calibration.inter_node.push_back({"send_recv", bytes, median(v)});
    used[3] += v.size();
  }
  const std::pair<const char*, std::size_t> tables[] = {{"attention", r.calibration.attention.size()},
                                                         {"gemm", r.calibration.gemm.size()},
                                                         {"links.intra_node", r.calibration.intra_node.size()},
                                                         {"links.inter_node", r.calibration.inter_node.size()}};
  for (int i = 0; i < 4; ++i)
    if (tables[i].second > 0) r.tables.push_back({tables[i].first, used[i], tables[i].second});
}

}  // namespace

TraceFitResult fit_calibration_from_trace(const Scenario& s, const MeasuredRun& run) {
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  // The model's own prediction of the run: each task's time with the contention it models.
  std::unordered_map<TaskId, double> predicted_s;
  for (const auto& e : app::predict(s, "analytic").trace.events) predicted_s[e.task] = e.end_s - e.start_s;
  const Fitter fitter(s, g, std::move(predicted_s));
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
        fitter.add(*it->second[i % n], kernels[i]->end_s - kernels[i]->start_s, samples);
    }
  }
  std::size_t used[4] = {0, 0, 0, 0};
  write_tables(samples, used, r);
  if (!r.tables.empty()) r.calibration.kernel_overhead_s = fitter.overhead_s();
  r.calibration.hardware = "fitted from " + std::to_string(run.ranks.size()) + " ranks of " + run.format + " traces";
  for (const auto& l : left_out) r.notes.push_back("left out (counts do not match the graph): " + l);
  if (samples.faster_than_peak > 0)
    r.notes.push_back(std::to_string(samples.faster_than_peak) +
                      " kernels ran faster than the peak allows for their task's work: the trace is not of this scenario?");
  if (samples.shorter_than_overhead > 0)
    r.notes.push_back(std::to_string(samples.shorter_than_overhead) + " kernels were shorter than the fixed overhead or latency");
  r.notes.push_back("not fitted: collectives other than send/recv (their message-size axis differs by op), launch overheads "
                    "(kernel_overhead_s is the scenario's, written so the fit inverts the same model)");
  return r;
}

void write_fit_summary(const TraceFitResult& r, std::ostream& os) {
  if (r.tables.empty()) os << "no table filled: no measured kernel matched a task of the scenario\n";
  for (const auto& t : r.tables)
    os << "filled " << t.table << " from " << t.samples << " kernels (" << t.points << " points)\n";
  for (const auto& n : r.notes) os << "note: " << n << '\n';
}

}  // namespace hcpsim
