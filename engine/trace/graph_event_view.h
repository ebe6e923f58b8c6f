#pragma once
// GraphEventView: the events of a run as the graph plus the task times (engine/trace/task_times.h).
// Event i is task i. Names are built only when asked for; the peers of every communication task are
// kept in one compressed array (4 bytes a peer), built in one pass in the constructor, or, for a
// reader that must not add that array to a run still holding its own state (the trace file written
// during the run), computed when asked for.
#include <array>
#include <memory>
#include <vector>

#include "engine/trace/event_view.h"
#include "engine/trace/send_recv_peers.h"
#include "engine/trace/task_times.h"

namespace hcpsim {

// final, and at(), rank() and name_key() defined here: the report's loops over a million
// events call them through a GraphEventView (engine/report/report.cpp), inlined instead of a
// virtual call each.
class GraphEventView final : public EventView {
 public:
  // Array: every peer in one array built here. OnDemand: nothing built here; peers() computes the
  // peers of the task asked for (the same ranks), keeps them until its next call and is for one
  // thread at a time.
  enum class PeerStorage { Array, OnDemand };
  // Keeps references to `g` and `times`, which must outlive the view. Precondition:
  // times.size() == g.size().
  GraphEventView(const TaskGraph& g, const std::vector<TaskTimes>& times, PeerStorage storage = PeerStorage::Array);
  std::size_t size() const override { return g_.size(); }
  EventFacts at(std::size_t i) const override {
    const TaskTimes& x = times_[i];
    return facts_of_task(static_cast<TaskId>(i), g_.task(static_cast<TaskId>(i)), x.start_s, x.end_s);
  }
  EventFacts untimed(std::size_t i) const override;
  std::int32_t rank(std::size_t i) const override { return g_.task(static_cast<TaskId>(i)).rank; }
  // display_name is "L<layer>.<fwd|bwd>[.s<step>].<label>": the name is a function of these four
  // fields, packed here (step + 1 in 31 bits: ring steps are far below 2^31).
  std::uint64_t name_key(std::size_t i) const override {
    const Task& t = g_.task(static_cast<TaskId>(i));
    return (static_cast<std::uint64_t>(static_cast<std::uint16_t>(t.layer)) << 48) |
           (static_cast<std::uint64_t>(t.pass == Pass::Backward) << 47) |
           (static_cast<std::uint64_t>(static_cast<std::uint32_t>(t.step + 1) & 0x7fffffffu) << 16) | t.label;
  }
  std::string name(std::size_t i) const override { return g_.display_name(g_.task(static_cast<TaskId>(i))); }
  // As TaskGraph::display_name, formatted in place.
  void append_name(std::size_t i, std::string& out) const override;
  std::span<const std::int32_t> peers(std::size_t i) const override {
    if (on_demand_) return peers_on_demand(i);
    return {peers_.data() + peer_begin_[i], peers_.data() + peer_begin_[i + 1]};
  }
  const TaskTimes* times() const override { return times_.data(); }
  const TaskGraph& graph() const { return g_; }

 private:
  // PeerStorage::OnDemand: the last peers given, and the tables of recently asked-for SendRecv ops
  // (the constructor uses the tables too).
  struct OnDemand {
    struct Slot {
      std::uint32_t op = kNone;
      std::vector<TaskId> members;            // the op's tasks, sorted
      std::vector<std::uint32_t> peer_begin;  // by position in `members`, plus one
      std::vector<std::int32_t> peers;        // of each member, as SendRecvPeers gives them
      std::size_t next = 0;   // position of the member asked for next when asked in task order
    };
    std::array<Slot, 64> slots;   // by op index modulo 64
    std::vector<std::int32_t> out;
  };
  std::span<const std::int32_t> peers_on_demand(std::size_t i) const;
  // Appends the peers of task i (none for a compute task), using and filling the op tables of `d`.
  void append_task_peers(OnDemand& d, std::size_t i, std::vector<std::int32_t>& out) const;

  const TaskGraph& g_;
  const std::vector<TaskTimes>& times_;
  std::vector<std::uint32_t> peer_begin_;   // by task, plus one: peers of task i are [begin[i], begin[i+1])
  std::vector<std::int32_t> peers_;
  std::unique_ptr<OnDemand> on_demand_;   // set for PeerStorage::OnDemand
};

}  // namespace hcpsim
