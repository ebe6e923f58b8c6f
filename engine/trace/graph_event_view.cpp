#include "engine/trace/graph_event_view.h"
#include "engine/trace/send_recv_peers.h"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace hcpsim {

GraphEventView::GraphEventView(const TaskGraph& g, const std::vector<TaskTimes>& times, PeerStorage storage)
    : g_(g), times_(times) {
  if (times.size() != g.size())
    throw std::invalid_argument("GraphEventView: " + std::to_string(times.size()) + " task times for " +
                                std::to_string(g.size()) + " tasks");
  if (storage == PeerStorage::OnDemand) {
    on_demand_ = std::make_unique<OnDemand>();
    return;
  }
  // Peers are gathered into `slices` (SendRecv ops first, op by op; then every other communication
  // task), then laid out in task order.
  const std::size_t n = g.size();
  std::vector<std::uint32_t> slice_begin(n, 0), count(n, 0);
  std::vector<std::uint8_t> done(n, 0);
  std::vector<std::int32_t> slices;
  const auto& comms = g.comms();
  for (std::uint32_t c = 0; c < comms.size(); ++c) {
    const CommOp& op = comms[c];
    if (op.kind != TaskKind::SendRecv) continue;
    const SendRecvPeers table(op);
    for (const TaskId id : op.tasks) {
      if (id >= n || done[id]) continue;
      const Task& t = g.task(id);
      if (t.comm != c || !is_communication(t.kind)) continue;
      slice_begin[id] = static_cast<std::uint32_t>(slices.size());
      table.append(t.rank, slices);
      count[id] = static_cast<std::uint32_t>(slices.size() - slice_begin[id]);
      done[id] = 1;
    }
  }
  std::vector<std::int32_t> scratch;
  for (std::size_t i = 0; i < n; ++i) {
    const Task& t = g.task(static_cast<TaskId>(i));
    if (done[i] || !is_communication(t.kind)) continue;
    scratch.clear();
    append_peers(g, t, scratch);
    slice_begin[i] = static_cast<std::uint32_t>(slices.size());
    count[i] = static_cast<std::uint32_t>(scratch.size());
    slices.insert(slices.end(), scratch.begin(), scratch.end());
  }
  peer_begin_.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) peer_begin_[i + 1] = peer_begin_[i] + count[i];
  peers_.resize(peer_begin_[n]);
  for (std::size_t i = 0; i < n; ++i)
    std::copy_n(slices.data() + slice_begin[i], count[i], peers_.data() + peer_begin_[i]);
}

EventFacts GraphEventView::untimed(std::size_t i) const {
  const Task& t = g_.task(static_cast<TaskId>(i));
  return {static_cast<TaskId>(i), t.rank, t.stream, t.kind, t.pass, t.layer, t.step, 0.0, 0.0, t.bytes, t.flops};
}

// As the constructor's array: a member of a SendRecv op (listed in its tasks) from the op's table,
// any other communication task from append_peers. The tables of the last ops asked for are kept;
// events in task order ask for the members of one op close together.
std::span<const std::int32_t> GraphEventView::peers_on_demand(std::size_t i) const {
  OnDemand& d = *on_demand_;
  d.out.clear();
  const Task& t = g_.task(static_cast<TaskId>(i));
  if (!is_communication(t.kind)) return {};
  const auto& comms = g_.comms();
  if (t.comm < comms.size() && comms[t.comm].kind == TaskKind::SendRecv) {
    const CommOp& op = comms[t.comm];
    OnDemand::Slot& slot = d.slots[t.comm % d.slots.size()];
    if (slot.op != t.comm) {
      slot.op = t.comm;
      slot.table = SendRecvPeers(op);
      slot.members.assign(op.tasks.begin(), op.tasks.end());
      std::sort(slot.members.begin(), slot.members.end());
    }
    if (std::binary_search(slot.members.begin(), slot.members.end(), static_cast<TaskId>(i))) {
      slot.table.append(t.rank, d.out);
      return d.out;
    }
  }
  append_peers(g_, t, d.out);
  return d.out;
}

void GraphEventView::append_name(std::size_t i, std::string& out) const {
  const Task& t = g_.task(static_cast<TaskId>(i));
  char buf[16];
  out += 'L';
  out.append(buf, std::to_chars(buf, buf + sizeof buf, t.layer).ptr);
  out += t.pass == Pass::Forward ? ".fwd" : ".bwd";
  if (t.step >= 0) {
    out += ".s";
    out.append(buf, std::to_chars(buf, buf + sizeof buf, t.step).ptr);
  }
  out += '.';
  out += g_.label(t);
}

}  // namespace hcpsim
