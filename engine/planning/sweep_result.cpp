#include "engine/planning/sweep_result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "engine/core/enum_names.h"

namespace hcpsim::planning {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Fixed columns after the axis columns, in file order.
const std::vector<std::string>& fixed_columns() {
  static const std::vector<std::string> cols = [] {
    std::vector<std::string> c{"status", "comm_type"};
    for (const auto& m : metric_names()) c.push_back(m);
    c.insert(c.end(), {"fits", "wall_s", "message"});
    return c;
  }();
  return cols;
}

double* metric_slot(PointMetrics& m, std::size_t i) {
  double* slots[] = {&m.step_s,          &m.attention_forward_s,      &m.attention_backward_s,
                     &m.layer_forward_s, &m.layer_backward_s,         &m.attention_tflops_per_gpu,
                     &m.exposed_comm_s,  &m.memory_per_gpu_bytes,     &m.tokens_per_s_per_gpu,
                     &m.mfu,             &m.pipeline_bubble_fraction, &m.ttft_s,
                     &m.mfu_causal};
  return slots[i];
}

// Value as shown in files and tables (memory in GiB).
double shown(const PointResult& r, std::size_t i) {
  PointMetrics m = r.metrics;
  const double v = *metric_slot(m, i);
  return metric_names()[i] == "memory_per_gpu_gib" ? v / kGiB : v;
}

std::string number_text(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c == '\n' ? ' ' : c;
  }
  return q + "\"";
}

constexpr auto kStatusNames = std::to_array<EnumName<PointStatus>>(
    {{PointStatus::Ok, "ok"}, {PointStatus::Invalid, "invalid"}, {PointStatus::Error, "error"}});

}  // namespace

PointMetrics::PointMetrics()
    : step_s(kNaN), attention_forward_s(kNaN), attention_backward_s(kNaN), layer_forward_s(kNaN),
      layer_backward_s(kNaN), attention_tflops_per_gpu(kNaN), exposed_comm_s(kNaN),
      memory_per_gpu_bytes(kNaN), tokens_per_s_per_gpu(kNaN), mfu(kNaN), pipeline_bubble_fraction(kNaN),
      ttft_s(kNaN), mfu_causal(kNaN) {}

const char* to_string(PointStatus s) { return name_of(kStatusNames, s); }

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names{
      "step_s",          "attention_forward_s", "attention_backward_s",
      "layer_forward_s", "layer_backward_s",    "attention_tflops_per_gpu",
      "exposed_comm_s",  "memory_per_gpu_gib",  "tokens_per_s_per_gpu",
      "mfu",             "pipeline_bubble_fraction", "ttft_s",
      "mfu_causal"};
  return names;
}

double metric_value(const PointResult& r, const std::string& name) {
  const auto& names = metric_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return shown(r, i);
  if (name == "attention_s") return r.metrics.attention_forward_s + r.metrics.attention_backward_s;
  std::string valid = "attention_s";
  for (const auto& n : names) valid += ", " + n;
  throw std::invalid_argument("unknown metric '" + name + "' (valid: " + valid + ")");
}

bool metric_higher_is_better(const std::string& name) {
  return name == "attention_tflops_per_gpu" || name == "tokens_per_s_per_gpu" || name == "mfu" ||
         name == "mfu_causal";
}

nlohmann::json to_json(const PointResult& r, const std::vector<std::string>& columns) {
  nlohmann::json j;
  for (std::size_t i = 0; i < columns.size() && i < r.labels.size(); ++i) j[columns[i]] = r.labels[i];
  j["status"] = to_string(r.status);
  j["comm_type"] = r.comm_type;
  const auto& names = metric_names();
  for (std::size_t i = 0; i < names.size(); ++i) {
    const double v = shown(r, i);
    j[names[i]] = std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v);
  }
  j["fits"] = r.fits;
  j["wall_s"] = r.wall_s;
  j["message"] = r.message;
  return j;
}

PointResult point_from_json(const nlohmann::json& j, const std::vector<std::string>& columns) {
  PointResult r;
  try {
    for (const auto& c : columns) r.labels.push_back(j.at(c).get<std::string>());
    r.status = parse_enum(kStatusNames, j.at("status").get<std::string>(), "status");
    r.comm_type = j.value("comm_type", "");
    const auto& names = metric_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
      double v = kNaN;
      if (j.contains(names[i]) && j[names[i]].is_number()) v = j[names[i]].get<double>();
      if (names[i] == "memory_per_gpu_gib") v *= kGiB;
      *metric_slot(r.metrics, i) = v;
    }
    r.fits = j.value("fits", false);
    r.wall_s = j.value("wall_s", 0.0);
    r.message = j.value("message", "");
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("malformed result: ") + e.what());
  }
  return r;
}

std::string csv_header(const std::vector<std::string>& columns) {
  std::string s;
  for (const auto& c : columns) s += csv_field(c) + ",";
  const auto& fixed = fixed_columns();
  for (std::size_t i = 0; i < fixed.size(); ++i) s += (i ? "," : "") + fixed[i];
  return s;
}

std::string csv_row(const PointResult& r) {
  std::string s;
  for (const auto& l : r.labels) s += csv_field(l) + ",";
  s += std::string(to_string(r.status)) + "," + csv_field(r.comm_type);
  for (std::size_t i = 0; i < metric_names().size(); ++i) s += "," + number_text(shown(r, i));
  s += std::string(",") + (r.fits ? "yes" : "no") + "," + number_text(r.wall_s) + "," + csv_field(r.message);
  return s;
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

FileFormat file_format_for(const std::string& path) {
  auto ends = [&path](const std::string& suf) {
    return path.size() >= suf.size() && path.compare(path.size() - suf.size(), suf.size(), suf) == 0;
  };
  return ends(".json") || ends(".jsonl") ? FileFormat::JsonLines : FileFormat::Csv;
}

bool is_preamble_line(const std::string& line) {
  return line.rfind("# ", 0) == 0 || line.rfind("{\"hcpsim_sweep_shard\"", 0) == 0;
}

void write_results_file(const std::string& path, const std::vector<PointResult>& rs,
                        const std::vector<std::string>& columns, const std::string& preamble) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot write the sweep results file");
    if (!preamble.empty()) out << preamble << '\n';
    const FileFormat fmt = file_format_for(path);
    if (fmt == FileFormat::Csv) out << csv_header(columns) << '\n';
    for (const auto& r : rs) out << (fmt == FileFormat::Csv ? csv_row(r) : to_json(r, columns).dump()) << '\n';
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": writing the sweep results failed (disk full?)");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot replace the sweep results file");
  }
}

std::vector<PointResult> read_results_file(const std::string& path,
                                           const std::vector<std::string>& columns) {
  std::vector<PointResult> out;
  std::ifstream in(path, std::ios::binary);
  if (!in) return out;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  const auto last_nl = text.find_last_of('\n');
  text = last_nl == std::string::npos ? "" : text.substr(0, last_nl + 1);   // drop a cut-off line
  std::istringstream lines(text);
  std::string line;
  int line_no = 0;
  const FileFormat fmt = file_format_for(path);
  std::vector<std::string> header;
  while (std::getline(lines, line)) {
    ++line_no;
    if (line.empty() || (line_no == 1 && is_preamble_line(line))) continue;
    const std::string where = path + ":" + std::to_string(line_no) + ": ";
    if (fmt == FileFormat::JsonLines) {
      try {
        out.push_back(point_from_json(nlohmann::json::parse(line), columns));
      } catch (const std::exception& e) {
        throw std::runtime_error(where + e.what());
      }
      continue;
    }
    std::vector<std::string> f = split_csv_line(line);
    if (header.empty()) {
      header = f;
      const std::string expected = csv_header(columns);
      if (line != expected)
        throw std::runtime_error(where + "header differs from this sweep's columns (expected '" +
                                 expected + "'); use another --out file");
      continue;
    }
    if (f.size() != header.size())
      throw std::runtime_error(where + "expected " + std::to_string(header.size()) + " fields, found " +
                               std::to_string(f.size()));
    try {
      nlohmann::json j;
      for (std::size_t i = 0; i < header.size(); ++i) j[header[i]] = f[i];
      for (const auto& m : metric_names())
        j[m] = j[m].get<std::string>().empty() ? nlohmann::json(nullptr)
                                               : nlohmann::json(std::stod(j[m].get<std::string>()));
      j["fits"] = j["fits"].get<std::string>() == "yes";
      j["wall_s"] = j["wall_s"].get<std::string>().empty() ? 0.0 : std::stod(j["wall_s"].get<std::string>());
      out.push_back(point_from_json(j, columns));
    } catch (const std::exception& e) {
      throw std::runtime_error(where + e.what());
    }
  }
  return out;
}

void sort_results(std::vector<PointResult>& rs, const std::string& metric) {
  const bool higher = metric_higher_is_better(metric);
  (void)metric_value(PointResult{}, metric);   // throws on an unknown name
  std::stable_sort(rs.begin(), rs.end(), [&](const PointResult& a, const PointResult& b) {
    if (a.status != b.status) return static_cast<int>(a.status) < static_cast<int>(b.status);
    const double va = metric_value(a, metric);
    const double vb = metric_value(b, metric);
    if (std::isnan(va) || std::isnan(vb)) return !std::isnan(va) && std::isnan(vb);
    return higher ? va > vb : va < vb;
  });
}

void write_table(std::ostream& os, const std::vector<PointResult>& rs,
                 const std::vector<std::string>& columns) {
  std::vector<std::string> head = columns;
  head.insert(head.end(), {"status", "comm", "step_s", "attn_fwd_ms", "attn_bwd_ms", "TFLOP/s",
                           "exposed_ms", "mem_GiB", "fits", "message"});
  std::vector<std::vector<std::string>> rows;
  auto ms = [](double s) { return std::isnan(s) ? std::string("-") : number_text(std::round(s * 1e6) / 1e3); };
  auto fixed = [](double v, int prec) {
    if (std::isnan(v)) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", prec, v);
    return std::string(buf);
  };
  for (const auto& r : rs) {
    std::vector<std::string> row = r.labels;
    row.resize(columns.size());
    const PointMetrics& m = r.metrics;
    row.insert(row.end(), {to_string(r.status), r.comm_type.empty() ? "-" : r.comm_type,
                           fixed(m.step_s, 3), ms(m.attention_forward_s), ms(m.attention_backward_s),
                           fixed(m.attention_tflops_per_gpu, 1), ms(m.exposed_comm_s),
                           fixed(m.memory_per_gpu_bytes / kGiB, 1),
                           r.status == PointStatus::Ok || !std::isnan(m.memory_per_gpu_bytes)
                               ? (r.fits ? "yes" : "NO") : "-",
                           r.message});
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(head.size(), 0);
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& row : rows)
    for (std::size_t i = 0; i + 1 < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto print = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      line += row[i];
      if (i + 1 < row.size()) line += std::string(width[i] - row[i].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    os << line << '\n';
  };
  print(head);
  for (const auto& row : rows) print(row);
}

void write_csv(std::ostream& os, const std::vector<PointResult>& rs,
               const std::vector<std::string>& columns) {
  os << csv_header(columns) << '\n';
  for (const auto& r : rs) os << csv_row(r) << '\n';
}

void write_json(std::ostream& os, const std::vector<PointResult>& rs,
                const std::vector<std::string>& columns) {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& r : rs) arr.push_back(to_json(r, columns));
  os << nlohmann::json{{"columns", columns}, {"points", arr}}.dump(2) << '\n';
}

}  // namespace hcpsim::planning
