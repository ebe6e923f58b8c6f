#include "engine/trace/chrome_trace_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

#include "engine/core/internal_error.h"
#include "engine/trace/decimal_format.h"

namespace hcpsim {
namespace {

// A piece handed to the output once this many bytes are formatted (a gzip output compresses each
// piece on its own thread); the buffer holds that plus room for one more event.
constexpr std::size_t kFlushBytes = 1 << 20;
constexpr std::size_t kBufferBytes = kFlushBytes + (64 << 10);

// The writers below format at `p`, which the caller has made room at (ChromeTraceWriter::room),
// and return the end of what they wrote.
template <std::size_t N>
char* put(char* p, const char (&literal)[N]) {
  std::memcpy(p, literal, N - 1);
  return p + N - 1;
}

char* put(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}

template <typename Int>
char* put_int(char* p, Int v) {
  return std::to_chars(p, p + 24, v).ptr;
}

// `text` followed by an integer: a key and its value, or a label and its number.
template <std::size_t N, typename Int>
char* put_int(char* p, const char (&text)[N], Int v) {
  return put_int(put(p, text), v);
}

// JSON string of `s`, quotes included: room for escaped_bound(s.size()).
constexpr std::size_t escaped_bound(std::size_t n) { return 6 * n + 2; }
char* put_escaped(char* p, std::string_view s) {
  *p++ = '"';
  for (const char c : s) {
    switch (c) {
      case '"': p = put(p, "\\\""); break;
      case '\\': p = put(p, "\\\\"); break;
      case '\n': p = put(p, "\\n"); break;
      case '\t': p = put(p, "\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          p = put(p, "\\u00");
          *p++ = kHex[(c >> 4) & 0xf];
          *p++ = kHex[c & 0xf];
        } else {
          *p++ = c;
        }
    }
  }
  *p++ = '"';
  return p;
}

// Non-finite values (refused by the guard before any event is written) as 0.
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

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
  buf_.resize(kBufferBytes);
  std::size_t escaped = escaped_bound(header.scenario.size()) + escaped_bound(header.configuration.size()) +
                        escaped_bound(header.backend.size());
  for (const auto& o : header.overrides) escaped += escaped_bound(o.size()) + 1;
  char* p = room(escaped + 512);
  p = put(p, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":");
  p = put_escaped(p, header.scenario);
  p = put(p, ",\"configuration\":");
  p = put_escaped(p, header.configuration);
  p = put(p, ",\"overrides\":[");
  for (std::size_t i = 0; i < header.overrides.size(); ++i) {
    if (i) *p++ = ',';
    p = put_escaped(p, header.overrides[i]);
  }
  p = put(p, "],\"backend\":");
  p = put_escaped(p, header.backend);
  p = put_int(p, ",\"world_size\":", header.world_size);
  p = put_int(p, ",\"gpus_per_node\":", gpn_);
  p = put_int(p, ",\"trace_format\":", kChromeTraceFormat);
  p = put(p, "},\n\"traceEvents\":[\n");
  advance(p);
}

char* ChromeTraceWriter::room(std::size_t bytes) {
  if (pos_ + bytes > buf_.size()) {
    hand_over();
    if (bytes > buf_.size()) buf_.resize(bytes);
  }
  return buf_.data() + pos_;
}

void ChromeTraceWriter::hand_over() {
  if (pos_ == 0) return;
  buf_.resize(pos_);
  out_.write_owned(std::move(buf_));   // an output with a thread keeps this buffer: no copy
  buf_ = std::string();
  buf_.resize(kBufferBytes);
  pos_ = 0;
}

char* ChromeTraceWriter::separator(char* p) {
  if (!first_) p = put(p, ",\n");
  first_ = false;
  return p;
}

void ChromeTraceWriter::advance(char* end) {
  pos_ = static_cast<std::size_t>(end - buf_.data());
  if (pos_ >= kFlushBytes) hand_over();
}

void ChromeTraceWriter::metadata(const std::set<int>& nodes, const std::set<std::pair<std::int32_t, int>>& threads) {
  for (const int n : nodes) {
    char* p = separator(room(512));
    p = put_int(p, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":", n);
    p = put_int(p, ",\"tid\":0,\"args\":{\"name\":\"node ", n);
    p = put(p, "\"}}");
    p = separator(p);
    p = put_int(p, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":", n);
    p = put_int(p, ",\"tid\":0,\"args\":{\"sort_index\":", n);
    p = put(p, "}}");
    advance(p);
  }
  for (const auto& [rank, stream] : threads) {
    const int tid = tid_of(rank, static_cast<Stream>(stream));
    char* p = separator(room(512));
    p = put_int(p, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":", rank / gpn_);
    p = put_int(p, ",\"tid\":", tid);
    p = put_int(p, ",\"args\":{\"name\":\"rank ", rank);
    *p++ = ' ';
    p = put(p, std::string_view(to_string(static_cast<Stream>(stream))));
    p = put(p, "\"}}");
    p = separator(p);
    p = put_int(p, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":", rank / gpn_);
    p = put_int(p, ",\"tid\":", tid);
    p = put_int(p, ",\"args\":{\"sort_index\":", tid);
    p = put(p, "}}");
    advance(p);
  }
}

void ChromeTraceWriter::event(const EventFacts& e, std::string_view name, std::span<const std::int32_t> peers) {
  check_trace_event(e, name);
  // The fixed text, kind and pass names and six integers take under 512 bytes.
  char* p = separator(room(512 + escaped_bound(name.size()) + 2 * kMaxFixedChars + 2 * kMaxGeneral17Chars +
                           12 * peers.size()));
  p = put(p, "{\"ph\":\"X\",\"name\":");
  p = put_escaped(p, name);
  p = put(p, ",\"cat\":\"");
  p = put(p, std::string_view(to_string(e.kind)));
  p = put_int(p, "\",\"pid\":", e.rank / gpn_);
  p = put_int(p, ",\"tid\":", tid_of(e.rank, e.stream));
  p = put(p, ",\"ts\":");
  p = format_fixed(p, finite_or_zero(e.start_s * 1e6), 6);
  p = put(p, ",\"dur\":");
  p = format_fixed(p, finite_or_zero((e.end_s - e.start_s) * 1e6), 6);
  // args: what the event's category and thread do not already say (format 2, docs/metrics.md
  // "Trace files"): the kind is `cat`, rank and stream are `tid` (rank x 6 + stream); step, bytes,
  // flops and peers only when they differ from "none" (-1, 0, 0, []).
  p = put_int(p, ",\"args\":{\"task\":", e.task);
  p = put_int(p, ",\"layer\":", e.layer);
  p = put(p, ",\"pass\":\"");
  p = put(p, std::string_view(to_string(e.pass)));
  *p++ = '"';
  if (e.step != -1) {
    p = put_int(p, ",\"step\":", e.step);
  }
  // As printf("%.17g"): every double written back exactly.
  if (e.bytes != 0) {
    p = put(p, ",\"bytes\":");
    p = format_general17(p, finite_or_zero(e.bytes));
  }
  if (e.flops != 0) {
    p = put(p, ",\"flops\":");
    p = format_general17(p, finite_or_zero(e.flops));
  }
  if (!peers.empty()) {
    p = put(p, ",\"peers\":[");
    for (std::size_t i = 0; i < peers.size(); ++i) {
      if (i) *p++ = ',';
      p = put_int(p, peers[i]);
    }
    *p++ = ']';
  }
  p = put(p, "}}");
  advance(p);
}

void ChromeTraceWriter::finish() {
  advance(put(room(8), "\n]}\n"));
  hand_over();
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
