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
  // One pass in task order, appending each task's peers where they belong: the members of one op
  // are close together in task order, so the op tables cached on the way are built about once.
  const std::size_t n = g.size();
  OnDemand tables;
  peer_begin_.resize(n + 1);
  std::uint32_t* begin = peer_begin_.data();
  begin[0] = 0;
  const Task* tasks = g.tasks().data();
  for (std::size_t i = 0; i < n; ++i) {
    if (is_communication(tasks[i].kind)) append_task_peers(tables, i, peers_);   // compute tasks have none
    begin[i + 1] = static_cast<std::uint32_t>(peers_.size());
  }
  peers_.shrink_to_fit();
}

EventFacts GraphEventView::untimed(std::size_t i) const {
  return facts_of_task(static_cast<TaskId>(i), g_.task(static_cast<TaskId>(i)), 0.0, 0.0);
}

// A member of a SendRecv op (listed in its tasks) from the op's table, any other communication task
// from append_peers. The tables of the last ops asked for are kept; events in task order ask for
// the members of one op close together.
void GraphEventView::append_task_peers(OnDemand& d, std::size_t i, std::vector<std::int32_t>& out) const {
  const Task& t = g_.task(static_cast<TaskId>(i));
  if (!is_communication(t.kind)) return;
  const auto& comms = g_.comms();
  if (t.comm < comms.size() && comms[t.comm].kind == TaskKind::SendRecv) {
    const CommOp& op = comms[t.comm];
    OnDemand::Slot& slot = d.slots[t.comm % d.slots.size()];
    if (slot.op != t.comm) {   // the op's members sorted, and the peers of each from the op's table
      slot.op = t.comm;
      slot.members.assign(op.tasks.begin(), op.tasks.end());
      std::sort(slot.members.begin(), slot.members.end());
      const SendRecvPeers table(op);
      slot.peers.clear();
      slot.peer_begin.assign(1, 0);
      for (const TaskId m : slot.members) {
        if (m < g_.size()) table.append(g_.task(m).rank, slot.peers);
        slot.peer_begin.push_back(static_cast<std::uint32_t>(slot.peers.size()));
      }
      slot.next = 0;
    }
    // Asked for in task order, the members come in sorted order: the expected one is tried first.
    std::size_t at = slot.next;
    if (at >= slot.members.size() || slot.members[at] != i) {
      const auto it = std::lower_bound(slot.members.begin(), slot.members.end(), static_cast<TaskId>(i));
      at = it != slot.members.end() && *it == i ? static_cast<std::size_t>(it - slot.members.begin()) : slot.members.size();
    }
    if (at < slot.members.size()) {
      slot.next = at + 1;
      for (std::uint32_t k = slot.peer_begin[at]; k < slot.peer_begin[at + 1]; ++k) out.push_back(slot.peers[k]);
      return;
    }
  }
  append_peers(g_, t, out);
}

std::span<const std::int32_t> GraphEventView::peers_on_demand(std::size_t i) const {
  OnDemand& d = *on_demand_;
  d.out.clear();
  append_task_peers(d, i, d.out);
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
