#include "engine/measured/kineto_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <istream>
#include <stdexcept>

#include "engine/measured/gzip_stream.h"
#include "engine/measured/profiled_ranges.h"

namespace hcpsim {
namespace {

using json = nlohmann::json;

// Bytes of one element of a profiler dtype name ("Float", "BFloat16", ...); 0 when unknown.
double dtype_bytes(const std::string& d) {
  if (d == "Float" || d == "Int" || d == "Float32" || d == "Int32") return 4;
  if (d == "BFloat16" || d == "Half" || d == "Float16" || d == "Short") return 2;
  if (d == "Double" || d == "Long" || d == "Int64") return 8;
  if (d == "Byte" || d == "Char" || d == "Bool" || d.rfind("Float8", 0) == 0) return 1;
  return 0;
}

// One event's fields while it is parsed (reused: no allocation per event once warm).
struct EventFields {
  std::string ph, cat, name, collective, dtype;
  double ts = 0, dur = -1, stream = -1, tid = -1, correlation = -1, nelems = 0;
  bool has_ts = false;
  void clear() {
    ph.clear(); cat.clear(); name.clear(); collective.clear(); dtype.clear();
    ts = 0; dur = -1; stream = -1; tid = -1; correlation = -1; nelems = 0;
    has_ts = false;
  }
};

class KinetoSax : public nlohmann::json_sax<json> {
 public:
  KinetoSax(const KernelClassifier& c, NameTable& names, std::vector<std::int8_t>& cache)
      : classifier_(c), names_(names), cache_(cache) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t v) override { return number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t&) override { return number(v); }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& v) override {
    if (in_event() && depth_ == event_depth_) {
      if (key_ == "ph") ev_.ph = v;
      else if (key_ == "cat") ev_.cat = v;
      else if (key_ == "name") ev_.name = std::move(v);
    } else if (in_event() && depth_ == event_depth_ + 1 && key_ == "Collective name") {
      ev_.collective = v;
    } else if (in_event() && depth_ == event_depth_ + 1 && key_ == "dtype") {
      ev_.dtype = v;
    }
    return true;
  }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 1) root_object_ = true;
    if (events_open_ && depth_ == event_depth_) ev_.clear();
    return true;
  }
  bool end_object() override {
    if (events_open_ && depth_ == event_depth_) finish_event();
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    if (depth_ == 1) {   // a bare array of events
      events_open_ = true;
      event_depth_ = 2;
      saw_events_ = true;
    } else if (depth_ == 2 && top_key_ == "traceEvents") {
      events_open_ = true;
      event_depth_ = 3;
      saw_events_ = true;
    }
    return true;
  }
  bool end_array() override {
    if (events_open_ && depth_ == event_depth_ - 1) events_open_ = false;
    --depth_;
    return true;
  }
  bool key(string_t& k) override {
    if (depth_ == 1) top_key_ = k;
    key_ = std::move(k);
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    error_position_ = position;
    error_ = e.what();
    return false;
  }

  MeasuredRank rank;
  std::vector<std::int64_t> correlation;
  std::vector<ProfiledRange> ranges;
  LaunchTimes launches;
  int dist_rank = -1, dist_world = 0;
  bool saw_events_ = false, root_object_ = false;
  std::size_t error_position_ = 0;
  std::string error_;

 private:
  bool in_event() const { return events_open_; }
  bool number(double v) {
    if (depth_ == 2 && top_key_ == "distributedInfo") {
      if (key_ == "rank") dist_rank = static_cast<int>(v);
      else if (key_ == "world_size") dist_world = static_cast<int>(v);
    } else if (in_event() && depth_ == event_depth_) {
      if (key_ == "ts") { ev_.ts = v; ev_.has_ts = true; }
      else if (key_ == "dur") ev_.dur = v;
      else if (key_ == "tid") ev_.tid = v;
    } else if (in_event() && depth_ == event_depth_ + 1) {
      if (key_ == "stream") ev_.stream = v;
      else if (key_ == "correlation") ev_.correlation = v;
      else if (key_ == "In msg nelems") ev_.nelems = v;
    }
    return true;
  }
  void finish_event() {
    if (ev_.ph != "X" || !ev_.has_ts || !(ev_.dur >= 0)) return;
    const double start_s = ev_.ts * 1e-6, end_s = (ev_.ts + ev_.dur) * 1e-6;
    // Categories of PyTorch 1.9 and later; "Kernel", "Memcpy", "Memset" and "Runtime" of 1.8.
    if (ev_.cat == "kernel" || ev_.cat == "gpu_memcpy" || ev_.cat == "gpu_memset" || ev_.cat == "Kernel" ||
        ev_.cat == "Memcpy" || ev_.cat == "Memset") {
      MeasuredKernel k;
      k.start_s = start_s;
      k.end_s = end_s;
      k.name = names_.id(ev_.name);
      if (cache_.size() <= k.name) cache_.resize(k.name + 1, -1);
      if (cache_[k.name] < 0) cache_[k.name] = static_cast<std::int8_t>(classifier_.classify(ev_.name));
      k.kind = static_cast<MeasuredKind>(cache_[k.name]);
      MeasuredKind c{};
      if (is_communication(k.kind) && !ev_.collective.empty() && KernelClassifier::collective_kind(ev_.collective, c))
        k.kind = c;
      k.bytes = ev_.nelems * dtype_bytes(ev_.dtype);
      k.stream = static_cast<std::int32_t>(ev_.stream >= 0 ? ev_.stream : std::max(0.0, ev_.tid));
      rank.kernels.push_back(k);
      correlation.push_back(ev_.correlation >= 0 ? static_cast<std::int64_t>(ev_.correlation) : -1);
    } else if (ev_.cat == "cuda_runtime" || ev_.cat == "cuda_driver" || ev_.cat == "Runtime") {
      if (ev_.correlation > 0) launches[static_cast<std::int64_t>(ev_.correlation)] = start_s;
    } else if (ev_.cat == "user_annotation" || ev_.cat == "gpu_user_annotation" ||
               ((ev_.cat == "Operator" || ev_.cat == "cpu_op") && ev_.name.rfind("ProfilerStep#", 0) == 0)) {
      // PyTorch 1.8 records ProfilerStep#N as an operator; other operators are not ranges.
      ProfiledRange r;
      if (!parse_profiled_range(ev_.name, r)) return;
      r.start_s = start_s;
      r.end_s = end_s;
      r.on_gpu = ev_.cat == "gpu_user_annotation";
      ranges.push_back(r);
    }
  }

  const KernelClassifier& classifier_;
  NameTable& names_;
  std::vector<std::int8_t>& cache_;
  int depth_ = 0, event_depth_ = 3;
  bool events_open_ = false;
  std::string top_key_, key_;
  EventFields ev_;
};

}  // namespace

int rank_from_file_name(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  std::transform(base.begin(), base.end(), base.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (std::size_t at = base.find("rank"); at != std::string::npos; at = base.find("rank", at + 1)) {
    std::size_t i = at + 4;
    if (i < base.size() && (base[i] == '-' || base[i] == '_' || base[i] == '.')) ++i;
    std::size_t j = i;
    int v = 0;
    while (j < base.size() && std::isdigit(static_cast<unsigned char>(base[j])) && j - i < 7) v = v * 10 + (base[j++] - '0');
    if (j > i) return v;
  }
  return -1;
}

KinetoRank read_kineto_trace(const std::string& path, int rank_hint, const KernelClassifier& classifier,
                             NameTable& names, std::vector<std::int8_t>& kind_cache) {
  GzipReadBuffer buf(path);
  std::istream in(&buf);
  KinetoSax sax(classifier, names, kind_cache);
  const bool ok = json::sax_parse(in, &sax, json::input_format_t::json, true);
  if (!buf.error().empty())
    throw std::runtime_error(path + ": cannot read (" + buf.error() + ") after " + std::to_string(buf.consumed()) +
                             " bytes: truncated or damaged gzip file?");
  if (!ok)
    throw std::runtime_error(path + ": not a complete JSON document (at byte " + std::to_string(sax.error_position_) +
                             "): truncated or not a PyTorch profiler trace: " + sax.error_);
  if (!sax.saw_events_)
    throw std::runtime_error(path + ": expected a PyTorch profiler (Kineto) trace: a JSON object with an array "
                             "\"traceEvents\"; this JSON has none");
  if (sax.rank.kernels.empty())
    throw std::runtime_error(path + ": holds no GPU work (events with cat kernel, gpu_memcpy or gpu_memset): "
                             "was it profiled with ProfilerActivity.CUDA?");
  KinetoRank out;
  out.world_size = sax.dist_world;
  if (sax.dist_rank >= 0) {
    out.rank.rank = sax.dist_rank;
    out.rank_from = "distributedInfo";
  } else if (rank_hint >= 0) {
    out.rank.rank = rank_hint;
    out.rank_from = "given";
  } else if (const int r = rank_from_file_name(path); r >= 0) {
    out.rank.rank = r;
    out.rank_from = "file name";
  } else {
    throw std::runtime_error(path + ": which rank is this? The trace has no distributedInfo.rank and its file name "
                             "states none: name the file like rank-3.json (or rank_3.pt.trace.json.gz), or give "
                             "the rank after the path: " + path + "@3");
  }
  out.rank.source = path;
  sort_kernels_by_start(sax.rank.kernels, sax.correlation);
  out.rank.kernels = std::move(sax.rank.kernels);
  assign_profiled_ranges(out.rank, std::move(sax.ranges), sax.correlation, sax.launches);
  assign_streams(out.rank);
  return out;
}

}  // namespace hcpsim
