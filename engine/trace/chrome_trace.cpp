// Chrome-trace / Perfetto JSON writer and reader (format: docs/metrics.md "Trace files").
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "engine/core/internal_error.h"
#include "engine/trace/trace.h"

namespace hcpsim {
namespace {

void write_escaped(std::ostream& os, const std::string& s) {
  os << '"';
  for (const char c : s) {
    switch (c) {
      case '"': os << "\\\""; break;
      case '\\': os << "\\\\"; break;
      case '\n': os << "\\n"; break;
      case '\t': os << "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          os << buf;
        } else {
          os << c;
        }
    }
  }
  os << '"';
}

void write_number(std::ostream& os, double v) {
  char buf[40];
  if (std::isfinite(v)) std::snprintf(buf, sizeof buf, "%.17g", v);
  else std::snprintf(buf, sizeof buf, "0");
  os << buf;
}

void write_fixed(std::ostream& os, double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::isfinite(v) ? v : 0.0);
  os << buf;
}

int tid_of(std::int32_t rank, Stream s) { return rank * kStreamCount + static_cast<int>(s); }

// The last guard before a trace file: every time, duration, byte and FLOP count is finite and >= 0.
void check_events(const Trace& t) {
  for (const auto& e : t.events) {
    const double dur = e.end_s - e.start_s;
    if (std::isfinite(e.start_s) && e.start_s >= 0 && std::isfinite(dur) && dur >= 0 && std::isfinite(e.bytes) &&
        e.bytes >= 0 && std::isfinite(e.flops) && e.flops >= 0)
      continue;
    const std::string what = "trace event of task " + std::to_string(e.task) + " (" + e.name + ")";
    require_non_negative("trace writer", what + " start_s", e.start_s);
    require_non_negative("trace writer", what + " duration", dur);
    require_non_negative("trace writer", what + " bytes", e.bytes);
    require_non_negative("trace writer", what + " flops", e.flops);
  }
}

}  // namespace

void write_chrome_trace(const Trace& t, std::ostream& os) {
  check_events(t);
  const int gpn = t.gpus_per_node > 0 ? t.gpus_per_node : 8;
  os << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"scenario\":";
  write_escaped(os, t.scenario);
  os << ",\"configuration\":";
  write_escaped(os, t.configuration);
  os << ",\"overrides\":[";
  for (std::size_t i = 0; i < t.overrides.size(); ++i) {
    if (i) os << ',';
    write_escaped(os, t.overrides[i]);
  }
  os << "],\"backend\":";
  write_escaped(os, t.backend);
  os << ",\"world_size\":" << t.world_size << ",\"gpus_per_node\":" << gpn << "},\n\"traceEvents\":[\n";
  // Metadata: name every process (node) and thread (rank x stream) that has events.
  std::set<int> nodes;
  std::set<std::pair<std::int32_t, int>> threads;
  for (const auto& e : t.events) {
    nodes.insert(e.rank / gpn);
    threads.insert({e.rank, static_cast<int>(e.stream)});
  }
  bool first = true;
  auto sep = [&] {
    if (!first) os << ",\n";
    first = false;
  };
  for (const int n : nodes) {
    sep();
    os << "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" << n << ",\"tid\":0,\"args\":{\"name\":\"node " << n
       << "\"}}";
    sep();
    os << "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" << n << ",\"tid\":0,\"args\":{\"sort_index\":"
       << n << "}}";
  }
  for (const auto& [rank, stream] : threads) {
    const int tid = tid_of(rank, static_cast<Stream>(stream));
    sep();
    os << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" << rank / gpn << ",\"tid\":" << tid
       << ",\"args\":{\"name\":\"rank " << rank << ' ' << to_string(static_cast<Stream>(stream)) << "\"}}";
    sep();
    os << "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" << rank / gpn << ",\"tid\":" << tid
       << ",\"args\":{\"sort_index\":" << tid << "}}";
  }
  for (const auto& e : t.events) {
    sep();
    os << "{\"ph\":\"X\",\"name\":";
    write_escaped(os, e.name);
    os << ",\"cat\":\"" << to_string(e.kind) << "\",\"pid\":" << e.rank / gpn << ",\"tid\":" << tid_of(e.rank, e.stream)
       << ",\"ts\":";
    write_fixed(os, e.start_s * 1e6, 6);
    os << ",\"dur\":";
    write_fixed(os, (e.end_s - e.start_s) * 1e6, 6);
    os << ",\"args\":{\"task\":" << e.task << ",\"rank\":" << e.rank << ",\"stream\":\"" << to_string(e.stream)
       << "\",\"kind\":\"" << to_string(e.kind) << "\",\"layer\":" << e.layer << ",\"pass\":\"" << to_string(e.pass)
       << "\",\"step\":" << e.step << ",\"bytes\":";
    write_number(os, e.bytes);
    os << ",\"flops\":";
    write_number(os, e.flops);
    os << ",\"peers\":[";
    for (std::size_t i = 0; i < e.peers.size(); ++i) os << (i ? "," : "") << e.peers[i];
    os << "]}}";
  }
  os << "\n]}\n";
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
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open trace file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
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
    const double rank = num(path, i, args, "rank", "args.");
    if (rank < 0 || rank != std::floor(rank)) bad(path, i, "args.rank must be a non-negative integer");
    e.rank = static_cast<std::int32_t>(rank);
    max_rank = std::max(max_rank, e.rank);
    const std::string stream = str(path, i, args, "stream", "args.");
    if (!parse_stream(stream, e.stream)) bad(path, i, "args.stream '" + stream + "' is not a stream name");
    const std::string kind = str(path, i, args, "kind", "args.");
    if (!parse_task_kind(kind, e.kind)) bad(path, i, "args.kind '" + kind + "' is not a task kind");
    const std::string pass = str(path, i, args, "pass", "args.");
    if (pass == "forward") e.pass = Pass::Forward;
    else if (pass == "backward") e.pass = Pass::Backward;
    else bad(path, i, "args.pass must be forward or backward, got '" + pass + "'");
    e.layer = static_cast<std::int16_t>(num(path, i, args, "layer", "args."));
    e.step = static_cast<std::int32_t>(num(path, i, args, "step", "args."));
    e.bytes = num(path, i, args, "bytes", "args.");
    e.flops = num(path, i, args, "flops", "args.");
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
