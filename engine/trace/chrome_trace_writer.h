#pragma once
// ChromeTraceWriter: writes the Chrome-trace / Perfetto JSON of docs/metrics.md "Trace files" as the
// events come, into a TraceOutput, through one buffer of about a megabyte (formatted in place: room
// is made for an event's longest text, then it is written at a cursor). write_chrome_trace
// (engine/trace/trace.h) and the streamed trace of `hcpsim simulate --trace` both use it, so a file is
// the same bytes whichever way it was written.
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "engine/trace/event_view.h"
#include "engine/trace/trace.h"
#include "engine/trace/trace_filter.h"
#include "engine/trace/trace_output.h"

namespace hcpsim {

// Version of the event layout written (otherData.trace_format). 2: args hold task, layer, pass and
// only the step, bytes, flops and peers that are not "none"; kind, rank and stream are read from
// `cat` and `tid`. Files without the field are format 1 (every field in args); both are read.
inline constexpr int kChromeTraceFormat = 2;

class ChromeTraceWriter {
 public:
  // Writes the file header (otherData from `header`: scenario, configuration, overrides, backend,
  // world size, GPUs per node); header.events is not read.
  ChromeTraceWriter(TraceOutput& out, const Trace& header);
  // Names every process (node) and thread (rank x stream) that has events; call once, before the events.
  void metadata(const std::set<int>& nodes, const std::set<std::pair<std::int32_t, int>>& threads);
  // One "ph":"X" event. Throws InternalError when a time, duration, byte or FLOP count is negative or
  // not finite (the last guard before a file).
  void event(const EventFacts& e, std::string_view name, std::span<const std::int32_t> peers);
  // Closes the JSON and hands the rest of the buffer to the output (which the caller closes).
  void finish();
  int gpus_per_node() const { return gpn_; }

 private:
  // The cursor, with room for `bytes` more (a full buffer is handed to the output first).
  char* room(std::size_t bytes);
  // Moves the cursor to `end` (within the room made) and hands the buffer over once it is full.
  void advance(char* end);
  void hand_over();
  char* separator(char* p);
  TraceOutput& out_;
  std::string buf_;      // a byte array: size() is its capacity, pos_ the bytes formatted
  std::size_t pos_ = 0;
  int gpn_ = 8;
  bool first_ = true;
};

// Throws InternalError naming the task when a time, duration, byte or FLOP count of the event is
// negative or not finite.
void check_trace_event(const EventFacts& e, std::string_view name);

// Writes a whole trace held in memory (as write_chrome_trace(const Trace&, std::ostream&)).
void write_chrome_trace(const Trace& t, TraceOutput& out);

// Streams the events of `v` that `filter` keeps into `out`, in view order, with the header's
// otherData. Returns the number of events written. Throws as ChromeTraceWriter and TraceOutput.
std::size_t write_chrome_trace(const EventView& v, const Trace& header, const TraceFilter& filter, TraceOutput& out);

}  // namespace hcpsim
