#include "sim/jit_executor.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <simgrid/s4u/Engine.hpp>

#include "sim/jit_executor_impl.h"
#include "sim/platform.h"

namespace hcpsim::sim {
namespace jit {

Executor::Executor(const TaskGraph& g, const PlanCosts& costs, const std::vector<sg4::Host*>& hosts,
                   RecordWriter& out, ComputeMode mode)
    : g_(g), costs_(costs), hosts_(hosts), out_(out), mode_(mode) {
  if (mode_ == ComputeMode::Timer) gpus_.resize(hosts.size());
  else live_exec_.resize(g.size());   // Timer mode creates no Exec
  ready_s_.assign(g.size(), -1.0);
  state_.assign(g.size(), 0);
  ops_.resize(g.comms().size());
  preds_left_ = g.in_degrees();
}

void Executor::start_roots() {
  for (TaskId t = 0; t < g_.size(); ++t)
    if (preds_left_[t] == 0) ready_.push_back(t);
  drain(0.0);
}

void Executor::on_completion(const sg4::Activity& a) noexcept {
  guarded([&] {
    if (graveyard_.size() >= 256) graveyard_.clear();   // references of earlier completions
    const auto tag = reinterpret_cast<std::uintptr_t>(a.get_data<void>());
    if (tag == 0) return;
    const double now = a.get_finish_time();
    if ((tag & 1u) != 0) {
      const auto op = static_cast<std::uint32_t>(tag >> 32);
      const auto f = static_cast<std::uint32_t>((tag & 0xffffffffu) >> 1);
      graveyard_.push_back(std::move(live_[ops_[op].live].comms[f]));
      flow_done(op, f, now);
    } else {
      const auto t = static_cast<TaskId>((tag >> 1) - 1);
      graveyard_.push_back(std::move(live_exec_[t]));
      complete(t, now);
    }
    drain(now);
  });
}

void Executor::finish() {
  graveyard_.clear();
  if (!error_.empty()) {
    out_.error(error_invalid_input_ ? error_ : "simgrid: " + error_, error_invalid_input_);
    return;
  }
  if (completed_ != g_.size()) {
    out_.error(stuck_report());
    return;
  }
  out_.done(completed_, makespan_, flows_lowered_);
}

void Executor::keep_error(const char* what, bool invalid_input) noexcept {
  if (!error_.empty()) return;
  try {
    error_ = what;
    error_invalid_input_ = invalid_input;
  } catch (...) {
  }
}

void Executor::drain(double now) {
  while (!ready_.empty()) {
    const TaskId t = ready_.back();
    ready_.pop_back();
    become_ready(t, now);
  }
  for (std::uint32_t rank : to_arm_) {
    gpus_[rank].arm_pending = false;
    rearm(rank, now);
  }
  to_arm_.clear();
}

void Executor::become_ready(TaskId t, double now) {
  ready_s_[t] = now;
  const Task& task = g_.task(t);
  if (!is_communication(task.kind)) {
    const double s = compute_seconds(g_, t, costs_);
    if (s <= 0) return complete(t, now);
    if (mode_ == ComputeMode::Timer) {
      gpus_[static_cast<std::size_t>(task.rank)].ps.start(now, s, t);
      return arm(static_cast<std::uint32_t>(task.rank), now);
    }
    auto e = sg4::Exec::init();
    e->set_flops_amount(s * kHostSpeed);
    e->set_host(hosts_[static_cast<std::size_t>(task.rank)]);
    e->set_data(exec_tag(t));
    e->start();
    live_exec_[t] = std::move(e);
    return;
  }
  state_[t] |= kComm;
  const std::uint32_t op = task.comm;
  add_comm_load(t, +1, now);
  OpState& st = ops_[op];
  ++st.members_ready;
  if (task.kind == TaskKind::SendRecv) {
    if (st.live == kNone) activate(op);
    LiveOp& lo = live_[st.live];
    const std::uint32_t m = lo.plan.member_of(t);
    for (std::uint32_t k = lo.plan.gate_begin[m]; k < lo.plan.gate_begin[m + 1]; ++k)
      open_gate(op, lo, lo.plan.member_gates[k], now);
    if (lo.plan.member_flows[m] == 0) finish_comm(t, now);
    return release_if_over(op);
  }
  if (st.members_ready != g_.comms()[op].tasks.size()) return;
  activate(op);
  LiveOp& lo = live_[st.live];
  if (lo.plan.flows.empty()) {
    complete_op(op, now);
    return release_if_over(op);
  }
  for (std::uint32_t f = 0; f < lo.plan.initial; ++f) open_gate(op, lo, f, now);
}

void Executor::activate(std::uint32_t op) {
  std::uint32_t slot;
  if (!free_live_.empty()) {
    slot = free_live_.back();
    free_live_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(live_.size());
    live_.emplace_back();
  }
  LiveOp& lo = live_[slot];
  lower_comm_op(g_, op, costs_, lo.plan);   // into the slot's vectors: no allocation once warm
  lo.comms.resize(lo.plan.flows.size());
  flows_lowered_ += lo.plan.flows.size();
  ops_[op].live = slot;
  ops_[op].flows_left = static_cast<std::uint32_t>(lo.plan.flows.size());
}

void Executor::release_if_over(std::uint32_t op) {
  OpState& st = ops_[op];
  if (st.live == kNone || st.flows_left != 0 || st.members_ready != g_.comms()[op].tasks.size()) return;
  // The slot keeps its vectors' capacity for the next op (its comms were all moved out).
  live_[st.live].comms.clear();
  free_live_.push_back(st.live);
  st.live = kNone;
}

void Executor::complete_op(std::uint32_t op, double now) {
  // A pipelined ring's latency (OpFlows::tail_s) delays its members' end like a host overhead.
  const std::uint32_t live = ops_[op].live;
  const double tail_s = live != kNone ? live_[live].plan.tail_s : 0.0;
  for (TaskId m : g_.comms()[op].tasks) finish_comm(m, now, tail_s);
}

void Executor::open_gate(std::uint32_t op, LiveOp& lo, std::uint32_t f, double) {
  OpFlow& fl = lo.plan.flows[f];
  if (--fl.gate != 0) return;
  const auto payload = static_cast<std::uint64_t>(std::llround(fl.wire_bytes * kByteScale));
  auto c = sg4::Comm::sendto_init();
  c->set_data(flow_tag(op, f));
  c->set_source(hosts_[static_cast<std::size_t>(fl.src)]);
  c->set_destination(hosts_[static_cast<std::size_t>(fl.dst)]);
  c->set_payload_size(payload);
  c->start();
  lo.comms[f] = std::move(c);
}

void Executor::flow_done(std::uint32_t op, std::uint32_t f, double now) {
  OpState& st = ops_[op];
  LiveOp& lo = live_[st.live];
  const OpFlow& fl = lo.plan.flows[f];
  --st.flows_left;
  if (lo.plan.collective()) {
    std::uint32_t next[2];
    const std::uint32_t n = lo.plan.ring_next(f, next);
    for (std::uint32_t k = 0; k < n; ++k) open_gate(op, lo, next[k], now);
    if (st.flows_left == 0) complete_op(op, now);
  } else {
    const auto& members = g_.comms()[op].tasks;
    if (--lo.plan.member_flows[fl.src_member] == 0) finish_comm(members[fl.src_member], now);
    if (fl.dst_member != fl.src_member && --lo.plan.member_flows[fl.dst_member] == 0) finish_comm(members[fl.dst_member], now);
  }
  release_if_over(op);
}

void Executor::complete(TaskId t, double now) {
  std::uint8_t& state = state_[t];
  if ((state & kDone) != 0) {
    if (error_.empty()) error_ = "task " + std::to_string(t) + " completed twice (internal error)";
    return;
  }
  state |= kDone;
  ++completed_;
  if ((state & kComm) != 0) add_comm_load(t, -1, now);   // (a compute task's record is not read again)
  if (now > makespan_) makespan_ = now;
  out_.event(t, ready_s_[t], now);
  const auto& adj = g_.adjacency();
  for (auto [it, end] = boost::out_edges(t, adj); it != end; ++it) {
    const auto s = static_cast<TaskId>(boost::target(*it, adj));
    if (--preds_left_[s] == 0) ready_.push_back(s);
  }
  if ((completed_ & 8191u) == 0) report_progress(now);
}

}  // namespace jit

void execute_graph(const TaskGraph& g, const PlanCosts& costs, const PlatformSpec& spec, RecordWriter& out,
                   ComputeMode mode) {
  if (!costs.compute_s || !costs.link_efficiency) throw std::invalid_argument("PlanCosts: both cost functions are required");
  auto engine = make_engine();
  const auto hosts = build_platform(spec);
  jit::Executor ex(g, costs, hosts, out, mode);
  jit::sg4::Activity::on_completion_cb([&ex](const jit::sg4::Activity& a) { ex.on_completion(a); });
  ex.start_roots();
  engine->run();
  ex.finish();
}

}  // namespace hcpsim::sim
