#pragma once
// FoldedEventView: the events of a folded run (engine/fold/fold_plan.h) as the whole job has them.
// The run simulated one unit of S ranks and N tasks; replica k of the job repeats it on ranks
// k x S .. k x S + S - 1. This view shows the chosen replicas one after the other: event
// k' x N + i is task i of the unit on replica replicas[k'], with its rank and its peers moved by
// k x S and its task id moved by k x N (so ids stay unique in a trace file). Times, kinds, bytes and
// names are the unit's: identical replicas have identical events.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/trace/event_view.h"
#include "engine/trace/trace_filter.h"

namespace hcpsim {

class FoldedEventView : public EventView {
 public:
  // Keeps a reference to `unit` (which must outlive the view). `replicas`: unit indices, ascending.
  FoldedEventView(const EventView& unit, int simulated_ranks, std::vector<int> replicas);
  std::size_t size() const override { return unit_.size() * replicas_.size(); }
  EventFacts at(std::size_t i) const override;
  EventFacts untimed(std::size_t i) const override;
  std::uint64_t name_key(std::size_t i) const override { return unit_.name_key(i % unit_.size()); }
  std::string name(std::size_t i) const override { return unit_.name(i % unit_.size()); }
  void append_name(std::size_t i, std::string& out) const override { unit_.append_name(i % unit_.size(), out); }
  // Valid until the next call of peers() on this view.
  std::span<const std::int32_t> peers(std::size_t i) const override;

 private:
  EventFacts moved(std::size_t i, EventFacts e) const;   // unit event i % N as replica i / N has it
  const EventView& unit_;
  int simulated_ranks_;
  std::vector<int> replicas_;
  mutable std::vector<std::int32_t> peers_;
};

// The replicas (ascending) that hold a rank `filter` keeps, among `replicas` units of
// `simulated_ranks` ranks each; every replica when the filter keeps every rank.
std::vector<int> replicas_kept(const TraceFilter& filter, int simulated_ranks, int replicas);

}  // namespace hcpsim
