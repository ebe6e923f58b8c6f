// Chrome-trace / Perfetto JSON writer and reader (format: docs/metrics.md "Trace files").
#include <nlohmann/json.hpp>

#include <cmath>
#include <ostream>
#include <set>
#include <stdexcept>

#include "engine/trace/chrome_trace_writer.h"
#include "engine/trace/trace.h"
#include "engine/trace/trace_event_view.h"
#include "engine/trace/trace_output.h"

namespace hcpsim {
namespace {

// A TraceOutput that appends to a std::ostream (the caller checks and closes the stream).
class StreamOutput : public TraceOutput {
 public:
  explicit StreamOutput(std::ostream& os) : os_(os) {}
  void write(std::string_view bytes) override { os_.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); }
  void close() override { os_.flush(); }

 private:
  std::ostream& os_;
};

}  // namespace

void write_chrome_trace(const Trace& t, std::ostream& os) {
  StreamOutput out(os);
  write_chrome_trace(t, out);
}

void write_chrome_trace(const Trace& t, TraceOutput& out) {
  // Every event is checked before the first byte is written.
  for (const auto& e : t.events) check_trace_event(e, e.name);
  ChromeTraceWriter w(out, t);
  const int gpn = w.gpus_per_node();
  std::set<int> nodes;
  std::set<std::pair<std::int32_t, int>> threads;
  for (const auto& e : t.events) {
    nodes.insert(e.rank / gpn);
    threads.insert({e.rank, static_cast<int>(e.stream)});
  }
  w.metadata(nodes, threads);
  for (const auto& e : t.events) w.event(e, e.name, e.peers);
  w.finish();
}

namespace {

[[noreturn]] void bad(const std::string& path, std::size_t index, const std::string& what) {
  throw std::runtime_error(path + ": traceEvents[" + std::to_string(index) + "]: " + what);
}

const nlohmann::json& field(const std::string& path, std::size_t i, const nlohmann::json& obj, const char* key,
                            const char* where) {
  auto it = obj.find(key);
  if (it == obj.end()) bad(path, i, std::string("missing field ") + where + key);
  return *it;
}

double num(const std::string& path, std::size_t i, const nlohmann::json& obj, const char* key, const char* where) {
  const auto& v = field(path, i, obj, key, where);
  if (!v.is_number()) bad(path, i, std::string(where) + key + " must be a number");
  return v.get<double>();
}

std::string str(const std::string& path, std::size_t i, const nlohmann::json& obj, const char* key,
                const char* where) {
  const auto& v = field(path, i, obj, key, where);
  if (!v.is_string()) bad(path, i, std::string(where) + key + " must be a string");
  return v.get<std::string>();
}

}  // namespace

Trace read_chrome_trace(const std::string& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(read_trace_bytes(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
  }
  Trace t;
  const nlohmann::json* events = nullptr;
  if (doc.is_array()) {
    events = &doc;
  } else if (doc.is_object()) {
    auto it = doc.find("traceEvents");
    if (it == doc.end() || !it->is_array()) throw std::runtime_error(path + ": missing array \"traceEvents\"");
    events = &*it;
    if (auto od = doc.find("otherData"); od != doc.end() && od->is_object()) {
      t.scenario = od->value("scenario", std::string());
      t.configuration = od->value("configuration", std::string());
      t.overrides = od->value("overrides", std::vector<std::string>());
      t.backend = od->value("backend", std::string());
      t.world_size = od->value("world_size", 0);
      t.gpus_per_node = od->value("gpus_per_node", 8);
    }
  } else {
    throw std::runtime_error(path + ": expected a JSON object with \"traceEvents\" or an array of events");
  }
  int max_rank = -1;
  for (std::size_t i = 0; i < events->size(); ++i) {
    const auto& ev = (*events)[i];
    if (!ev.is_object()) bad(path, i, "event is not an object");
    if (ev.value("ph", std::string()) != "X") continue;   // metadata and other phases
    const auto& args = field(path, i, ev, "args", "");
    if (!args.is_object()) bad(path, i, "args must be an object");
    TraceEvent e;
    e.name = str(path, i, ev, "name", "");
    const double ts = num(path, i, ev, "ts", ""), dur = num(path, i, ev, "dur", "");
    if (dur < 0) bad(path, i, "dur is negative");
    e.start_s = ts * 1e-6;
    e.end_s = (ts + dur) * 1e-6;
    const double task = num(path, i, args, "task", "args.");
    if (task < 0 || task != std::floor(task)) bad(path, i, "args.task must be a non-negative integer");
    e.task = static_cast<TaskId>(task);
    // Format 1 names rank, stream and kind in args; format 2 leaves them to tid and cat.
    if (args.contains("rank") || !ev.contains("tid")) {
      const double rank = num(path, i, args, "rank", "args.");
      if (rank < 0 || rank != std::floor(rank)) bad(path, i, "args.rank must be a non-negative integer");
      e.rank = static_cast<std::int32_t>(rank);
      const std::string stream = str(path, i, args, "stream", "args.");
      if (!parse_stream(stream, e.stream)) bad(path, i, "args.stream '" + stream + "' is not a stream name");
    } else {
      const double tid = num(path, i, ev, "tid", "");
      if (tid < 0 || tid != std::floor(tid) || tid >= 6.0 * 2147483647.0)
        bad(path, i, "tid must be a non-negative integer (rank x " + std::to_string(kStreamCount) + " + stream)");
      const auto lane = static_cast<std::int64_t>(tid);
      e.rank = static_cast<std::int32_t>(lane / kStreamCount);
      e.stream = static_cast<Stream>(lane % kStreamCount);
    }
    max_rank = std::max(max_rank, e.rank);
    const std::string kind = args.contains("kind") ? str(path, i, args, "kind", "args.") : str(path, i, ev, "cat", "");
    if (!parse_task_kind(kind, e.kind))
      bad(path, i, std::string(args.contains("kind") ? "args.kind" : "cat") + " '" + kind + "' is not a task kind");
    const std::string pass = str(path, i, args, "pass", "args.");
    if (pass == "forward") e.pass = Pass::Forward;
    else if (pass == "backward") e.pass = Pass::Backward;
    else bad(path, i, "args.pass must be forward or backward, got '" + pass + "'");
    e.layer = static_cast<std::int16_t>(num(path, i, args, "layer", "args."));
    // Absent in format 2 when "none".
    if (args.contains("step")) e.step = static_cast<std::int32_t>(num(path, i, args, "step", "args."));
    if (args.contains("bytes")) e.bytes = num(path, i, args, "bytes", "args.");
    if (args.contains("flops")) e.flops = num(path, i, args, "flops", "args.");
    if (auto p = args.find("peers"); p != args.end()) {
      if (!p->is_array()) bad(path, i, "args.peers must be an array");
      for (const auto& r : *p) {
        if (!r.is_number_integer()) bad(path, i, "args.peers must hold integers");
        e.peers.push_back(r.get<std::int32_t>());
      }
    }
    t.events.push_back(std::move(e));
  }
  if (t.world_size == 0) t.world_size = max_rank + 1;
  return t;
}

}  // namespace hcpsim
