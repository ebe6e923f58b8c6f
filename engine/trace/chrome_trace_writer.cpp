#include "engine/trace/chrome_trace_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "engine/core/internal_error.h"
#include "engine/trace/decimal_format.h"

namespace hcpsim {
namespace {

constexpr std::size_t kFlushBytes = 1 << 20;

void append_escaped(std::string& os, std::string_view s) {
  os += '"';
  if (std::none_of(s.begin(), s.end(), [](char c) { return c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20; })) {
    os += s;   // the usual case: nothing to escape
    os += '"';
    return;
  }
  for (const char c : s) {
    switch (c) {
      case '"': os += "\\\""; break;
      case '\\': os += "\\\\"; break;
      case '\n': os += "\\n"; break;
      case '\t': os += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          os += buf;
        } else {
          os += c;
        }
    }
  }
  os += '"';
}

template <typename Int>
void append_int(std::string& os, Int v) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  os.append(buf, r.ptr);
}

// Non-finite values (refused by the guard before any event is written) as 0.
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

// As printf("%.17g"): every double written back exactly.
void append_number(std::string& os, double v) { append_general17(os, finite_or_zero(v)); }

int tid_of(std::int32_t rank, Stream s) { return rank * kStreamCount + static_cast<int>(s); }

}  // namespace

void check_trace_event(const EventFacts& e, std::string_view name) {
  const double dur = e.end_s - e.start_s;
  if (std::isfinite(e.start_s) && e.start_s >= 0 && std::isfinite(dur) && dur >= 0 && std::isfinite(e.bytes) &&
      e.bytes >= 0 && std::isfinite(e.flops) && e.flops >= 0)
    return;
  const std::string what = "trace event of task " + std::to_string(e.task) + " (" + std::string(name) + ")";
  require_non_negative("trace writer", what + " start_s", e.start_s);
  require_non_negative("trace writer", what + " duration", dur);
  require_non_negative("trace writer", what + " bytes", e.bytes);
  require_non_negative("trace writer", what + " flops", e.flops);
}

ChromeTraceWriter::ChromeTraceWriter(TraceOutput& out, const Trace& header)
    : out_(out), gpn_(header.gpus_per_node > 0 ? header.gpus_per_node : 8) {
  buf_.reserve(kFlushBytes + 4096);
  buf_ += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":";
  append_escaped(buf_, header.scenario);
  buf_ += ",\"configuration\":";
  append_escaped(buf_, header.configuration);
  buf_ += ",\"overrides\":[";
  for (std::size_t i = 0; i < header.overrides.size(); ++i) {
    if (i) buf_ += ',';
    append_escaped(buf_, header.overrides[i]);
  }
  buf_ += "],\"backend\":";
  append_escaped(buf_, header.backend);
  buf_ += ",\"world_size\":";
  append_int(buf_, header.world_size);
  buf_ += ",\"gpus_per_node\":";
  append_int(buf_, gpn_);
  buf_ += ",\"trace_format\":";
  append_int(buf_, kChromeTraceFormat);
  buf_ += "},\n\"traceEvents\":[\n";
}

void ChromeTraceWriter::separator() {
  if (!first_) buf_ += ",\n";
  first_ = false;
}

void ChromeTraceWriter::flush_if_full() {
  if (buf_.size() < kFlushBytes) return;
  out_.write_owned(std::move(buf_));   // an output with a thread keeps this buffer: no copy
  buf_.clear();
  buf_.reserve(kFlushBytes + 4096);
}

void ChromeTraceWriter::metadata(const std::set<int>& nodes, const std::set<std::pair<std::int32_t, int>>& threads) {
  for (const int n : nodes) {
    separator();
    buf_ += "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":";
    append_int(buf_, n);
    buf_ += ",\"tid\":0,\"args\":{\"name\":\"node ";
    append_int(buf_, n);
    buf_ += "\"}}";
    separator();
    buf_ += "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":";
    append_int(buf_, n);
    buf_ += ",\"tid\":0,\"args\":{\"sort_index\":";
    append_int(buf_, n);
    buf_ += "}}";
    flush_if_full();
  }
  for (const auto& [rank, stream] : threads) {
    const int tid = tid_of(rank, static_cast<Stream>(stream));
    separator();
    buf_ += "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":";
    append_int(buf_, rank / gpn_);
    buf_ += ",\"tid\":";
    append_int(buf_, tid);
    buf_ += ",\"args\":{\"name\":\"rank ";
    append_int(buf_, rank);
    buf_ += ' ';
    buf_ += to_string(static_cast<Stream>(stream));
    buf_ += "\"}}";
    separator();
    buf_ += "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":";
    append_int(buf_, rank / gpn_);
    buf_ += ",\"tid\":";
    append_int(buf_, tid);
    buf_ += ",\"args\":{\"sort_index\":";
    append_int(buf_, tid);
    buf_ += "}}";
    flush_if_full();
  }
}

void ChromeTraceWriter::event(const EventFacts& e, std::string_view name, std::span<const std::int32_t> peers) {
  check_trace_event(e, name);
  separator();
  buf_ += "{\"ph\":\"X\",\"name\":";
  append_escaped(buf_, name);
  buf_ += ",\"cat\":\"";
  buf_ += to_string(e.kind);
  buf_ += "\",\"pid\":";
  append_int(buf_, e.rank / gpn_);
  buf_ += ",\"tid\":";
  append_int(buf_, tid_of(e.rank, e.stream));
  buf_ += ",\"ts\":";
  append_fixed(buf_, finite_or_zero(e.start_s * 1e6), 6);
  buf_ += ",\"dur\":";
  append_fixed(buf_, finite_or_zero((e.end_s - e.start_s) * 1e6), 6);
  // args: what the event's category and thread do not already say (format 2, docs/metrics.md
  // "Trace files"): the kind is `cat`, rank and stream are `tid` (rank x 6 + stream); step, bytes,
  // flops and peers only when they differ from "none" (-1, 0, 0, []).
  buf_ += ",\"args\":{\"task\":";
  append_int(buf_, e.task);
  buf_ += ",\"layer\":";
  append_int(buf_, e.layer);
  buf_ += ",\"pass\":\"";
  buf_ += to_string(e.pass);
  buf_ += '"';
  if (e.step != -1) {
    buf_ += ",\"step\":";
    append_int(buf_, e.step);
  }
  if (e.bytes != 0) {
    buf_ += ",\"bytes\":";
    append_number(buf_, e.bytes);
  }
  if (e.flops != 0) {
    buf_ += ",\"flops\":";
    append_number(buf_, e.flops);
  }
  if (!peers.empty()) {
    buf_ += ",\"peers\":[";
    for (std::size_t i = 0; i < peers.size(); ++i) {
      if (i) buf_ += ',';
      append_int(buf_, peers[i]);
    }
    buf_ += ']';
  }
  buf_ += "}}";
  flush_if_full();
}

void ChromeTraceWriter::finish() {
  buf_ += "\n]}\n";
  out_.write(buf_);
  buf_.clear();
}

std::size_t write_chrome_trace(const EventView& v, const Trace& header, const TraceFilter& filter, TraceOutput& out) {
  ChromeTraceWriter w(out, header);
  const int gpn = w.gpus_per_node();
  // Which (rank, stream) lanes have events: flags by rank first (a tree insert per event cost more
  // than formatting it), then the sorted sets the metadata is written from.
  const std::size_t n = v.size();
  std::vector<std::uint8_t> lanes;   // by rank: bit s set when stream s has a kept event
  std::set<std::pair<std::int32_t, int>> sparse;   // ranks too large for the table (trace files)
  // From the facts that do not depend on the run: on a run in progress, the metadata is written
  // before its first times are known.
  for (std::size_t i = 0; i < n; ++i) {
    const EventFacts e = v.untimed(i);
    if (!filter.keeps(e.rank, e.layer)) continue;
    const auto bit = static_cast<std::uint8_t>(1u << static_cast<int>(e.stream));
    if (e.rank >= 0 && static_cast<std::size_t>(e.rank) < n + 65536) {
      if (static_cast<std::size_t>(e.rank) >= lanes.size()) lanes.resize(static_cast<std::size_t>(e.rank) + 1, 0);
      lanes[static_cast<std::size_t>(e.rank)] |= bit;
    } else {
      sparse.insert({e.rank, static_cast<int>(e.stream)});
    }
  }
  std::set<int> nodes;
  std::set<std::pair<std::int32_t, int>> threads = std::move(sparse);
  for (const auto& [rank, stream] : threads) nodes.insert(rank / gpn);
  for (std::size_t r = 0; r < lanes.size(); ++r) {
    if (lanes[r] == 0) continue;
    nodes.insert(static_cast<int>(r) / gpn);
    for (int st = 0; st < kStreamCount; ++st)
      if (lanes[r] & (1u << st)) threads.insert(threads.end(), {static_cast<std::int32_t>(r), st});
  }
  w.metadata(nodes, threads);
  std::size_t written = 0;
  std::string name;
  for (std::size_t i = 0; i < n; ++i) {
    const EventFacts e = v.at(i);
    if (!filter.keeps(e.rank, e.layer)) continue;
    name.clear();
    v.append_name(i, name);
    w.event(e, name, v.peers(i));
    ++written;
  }
  w.finish();
  return written;
}

}  // namespace hcpsim
