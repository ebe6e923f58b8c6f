#include "engine/cost/calibration.h"
#include "engine/scenario/scenario_file.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace hcpsim {
namespace {

[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& field,
                       const std::string& message) {
  std::ostringstream os;
  os << file;
  if (n.IsDefined() && n.Mark().line >= 0) os << ':' << n.Mark().line + 1 << ':' << n.Mark().column + 1;
  os << ": error: " << field << ": " << message;
  throw std::runtime_error(os.str());
}

double number(const std::string& file, const YAML::Node& parent, const std::string& key,
              const std::string& field) {
  const YAML::Node n = parent[key];
  if (!n) fail(file, parent, field, "missing field '" + key + "'");
  try {
    return n.as<double>();
  } catch (const YAML::Exception&) {
    fail(file, n, field + "." + key, "expected a number, got '" + n.Scalar() + "'");
  }
}

double efficiency(const std::string& file, const YAML::Node& entry, const std::string& field) {
  const double e = number(file, entry, "efficiency", field);
  if (!(e > 0 && e <= 1)) fail(file, entry["efficiency"], field + ".efficiency", "must be in (0, 1]");
  return e;
}

double positive(const std::string& file, const YAML::Node& entry, const std::string& key,
                const std::string& field) {
  const double v = number(file, entry, key, field);
  if (!(v > 0)) fail(file, entry[key], field + "." + key, "must be > 0");
  return v;
}

void check_keys(const std::string& file, const YAML::Node& map, const std::string& field,
                std::initializer_list<const char*> allowed) {
  if (!map.IsMap()) fail(file, map, field, "expected a mapping");
  for (const auto& kv : map) {
    const auto key = kv.first.as<std::string>();
    bool ok = false;
    for (const char* a : allowed) ok = ok || key == a;
    if (!ok) {
      std::string valid;
      for (const char* a : allowed) valid += std::string(valid.empty() ? "" : ", ") + a;
      fail(file, kv.first, field + "." + key, "unknown key; valid keys: " + valid);
    }
  }
}

std::vector<LinkCalibrationPoint> links(const std::string& file, const YAML::Node& seq,
                                        const std::string& field) {
  std::vector<LinkCalibrationPoint> out;
  if (!seq) return out;
  if (!seq.IsSequence()) fail(file, seq, field, "expected a list of {op, bytes, efficiency}");
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    check_keys(file, seq[i], f, {"op", "bytes", "efficiency"});
    LinkCalibrationPoint p;
    if (seq[i]["op"]) {
      p.op = seq[i]["op"].as<std::string>();
      if (p.op != "send_recv" && p.op != "all_to_all" && p.op != "all_gather" && p.op != "reduce_scatter" &&
          p.op != "all_reduce")
        fail(file, seq[i]["op"], f + ".op",
             "'" + p.op + "' is not one of send_recv, all_to_all, all_gather, reduce_scatter, all_reduce");
    }
    p.bytes = positive(file, seq[i], "bytes", f);
    p.efficiency = efficiency(file, seq[i], f);
    out.push_back(p);
  }
  return out;
}

Calibration parse(const YAML::Node& root, const std::string& file) {
  Calibration c;
  if (!root || root.IsNull()) return c;
  check_keys(file, root, "calibration",
             {"hardware", "software", "kernel_overhead_s", "compute_slowdown_during_comm", "comm_hbm_interference",
              "nccl_launch_s", "ring_step_sync_s", "attention", "gemm", "links"});
  if (root["hardware"]) c.hardware = root["hardware"].as<std::string>();
  if (root["software"]) c.software = root["software"].as<std::string>();
  if (root["kernel_overhead_s"]) {
    const double v = number(file, root, "kernel_overhead_s", "calibration");
    if (!(v >= 0 && v < 1e-2)) fail(file, root["kernel_overhead_s"], "kernel_overhead_s", "must be in [0, 0.01) seconds");
    c.kernel_overhead_s = v;
  }
  if (root["compute_slowdown_during_comm"]) {
    const double v = number(file, root, "compute_slowdown_during_comm", "calibration");
    if (!(v >= 1)) fail(file, root["compute_slowdown_during_comm"], "compute_slowdown_during_comm", "must be >= 1");
    c.compute_slowdown_during_comm = v;
  }
  if (root["comm_hbm_interference"]) {
    const double v = number(file, root, "comm_hbm_interference", "calibration");
    if (!(v >= 0 && v <= 10)) fail(file, root["comm_hbm_interference"], "comm_hbm_interference", "must be in [0, 10]");
    c.comm_hbm_interference = v;
  }
  for (const char* k : {"nccl_launch_s", "ring_step_sync_s"}) {
    if (!root[k]) continue;
    const double v = number(file, root, k, "calibration");
    if (!(v >= 0 && v < 1e-2)) fail(file, root[k], k, "must be in [0, 0.01) seconds");
    (std::string(k) == "nccl_launch_s" ? c.nccl_launch_s : c.ring_step_sync_s) = v;
  }
  if (const YAML::Node a = root["attention"]) {
    if (!a.IsSequence()) fail(file, a, "attention", "expected a list of {pass, head_dim, mask, q_len, kv_len, efficiency}");
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::string f = "attention[" + std::to_string(i) + "]";
      check_keys(file, a[i], f, {"pass", "head_dim", "mask", "q_len", "kv_len", "efficiency"});
      AttentionCalibrationPoint p;
      const std::string pass = a[i]["pass"] ? a[i]["pass"].as<std::string>() : "";
      if (pass == "forward") p.pass = Pass::Forward;
      else if (pass == "backward") p.pass = Pass::Backward;
      else fail(file, a[i]["pass"] ? a[i]["pass"] : a[i], f + ".pass", "must be forward or backward");
      p.head_dim = static_cast<int>(positive(file, a[i], "head_dim", f));
      const std::string mask = a[i]["mask"] ? a[i]["mask"].as<std::string>() : "";
      if (mask == "causal") p.causal = true;
      else if (mask == "none") p.causal = false;
      else fail(file, a[i]["mask"] ? a[i]["mask"] : a[i], f + ".mask", "must be causal or none");
      p.q_len = positive(file, a[i], "q_len", f);
      p.kv_len = positive(file, a[i], "kv_len", f);
      p.efficiency = efficiency(file, a[i], f);
      c.attention.push_back(p);
    }
  }
  if (const YAML::Node g = root["gemm"]) {
    if (!g.IsSequence()) fail(file, g, "gemm", "expected a list of {flops, efficiency}");
    for (std::size_t i = 0; i < g.size(); ++i) {
      const std::string f = "gemm[" + std::to_string(i) + "]";
      check_keys(file, g[i], f, {"flops", "efficiency"});
      c.gemm.push_back({positive(file, g[i], "flops", f), efficiency(file, g[i], f)});
    }
  }
  if (const YAML::Node l = root["links"]) {
    check_keys(file, l, "links", {"intra_node", "inter_node"});
    c.intra_node = links(file, l["intra_node"], "links.intra_node");
    c.inter_node = links(file, l["inter_node"], "links.inter_node");
  }
  return c;
}

}  // namespace

Calibration load_calibration_string(const std::string& yaml, const std::string& name_for_messages) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::ParserException& e) {
    throw std::runtime_error(name_for_messages + ":" + std::to_string(e.mark.line + 1) +
                             ": error: calibration: YAML syntax: " + e.msg);
  }
  try {
    return parse(root, name_for_messages);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(name_for_messages + ":" + std::to_string(e.mark.line + 1) +
                             ": error: calibration: " + e.msg);
  }
}

Calibration load_calibration_file(const std::string& path) {
  // Same rules as scenario files: a regular file of bounded size, read without blocking.
  return load_calibration_string(read_file_or_throw(path, "calibration file", "calibration"), path);
}

std::string calibration_to_yaml(const Calibration& c) {
  YAML::Emitter out;
  out.SetDoublePrecision(9);
  out << YAML::BeginMap;
  out << YAML::Key << "hardware" << YAML::Value << c.hardware;
  out << YAML::Key << "software" << YAML::Value << c.software;
  if (c.kernel_overhead_s) out << YAML::Key << "kernel_overhead_s" << YAML::Value << *c.kernel_overhead_s;
  if (c.compute_slowdown_during_comm)
    out << YAML::Key << "compute_slowdown_during_comm" << YAML::Value << *c.compute_slowdown_during_comm;
  if (c.comm_hbm_interference) out << YAML::Key << "comm_hbm_interference" << YAML::Value << *c.comm_hbm_interference;
  if (c.nccl_launch_s) out << YAML::Key << "nccl_launch_s" << YAML::Value << *c.nccl_launch_s;
  if (c.ring_step_sync_s) out << YAML::Key << "ring_step_sync_s" << YAML::Value << *c.ring_step_sync_s;
  if (!c.attention.empty()) {
    out << YAML::Key << "attention" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : c.attention)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "pass" << YAML::Value << to_string(p.pass)
          << YAML::Key << "head_dim" << YAML::Value << p.head_dim << YAML::Key << "mask" << YAML::Value
          << (p.causal ? "causal" : "none") << YAML::Key << "q_len" << YAML::Value << p.q_len
          << YAML::Key << "kv_len" << YAML::Value << p.kv_len << YAML::Key << "efficiency"
          << YAML::Value << p.efficiency << YAML::EndMap;
    out << YAML::EndSeq;
  }
  if (!c.gemm.empty()) {
    out << YAML::Key << "gemm" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : c.gemm)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "flops" << YAML::Value << p.flops << YAML::Key
          << "efficiency" << YAML::Value << p.efficiency << YAML::EndMap;
    out << YAML::EndSeq;
  }
  if (!c.intra_node.empty() || !c.inter_node.empty()) {
    out << YAML::Key << "links" << YAML::Value << YAML::BeginMap;
    for (const auto* table : {&c.intra_node, &c.inter_node}) {
      if (table->empty()) continue;
      out << YAML::Key << (table == &c.intra_node ? "intra_node" : "inter_node") << YAML::Value << YAML::BeginSeq;
      for (const auto& p : *table)
        out << YAML::Flow << YAML::BeginMap << YAML::Key << "op" << YAML::Value << p.op << YAML::Key << "bytes"
            << YAML::Value << p.bytes << YAML::Key << "efficiency" << YAML::Value << p.efficiency << YAML::EndMap;
      out << YAML::EndSeq;
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

double interpolate_log_x(std::vector<std::pair<double, double>> points, double x) {
  if (points.empty()) throw std::invalid_argument("interpolate_log_x: no points");
  std::map<double, std::pair<double, int>> merged;   // x -> (sum y, count)
  for (const auto& [px, py] : points) {
    auto& m = merged[px];
    m.first += py;
    ++m.second;
  }
  std::vector<std::pair<double, double>> pts;
  for (const auto& [px, m] : merged) pts.emplace_back(px, m.first / m.second);
  if (x <= pts.front().first) return pts.front().second;
  if (x >= pts.back().first) return pts.back().second;
  for (std::size_t i = 1; i < pts.size(); ++i) {
    if (x <= pts[i].first) {
      const double x0 = std::log(pts[i - 1].first), x1 = std::log(pts[i].first);
      const double w = (std::log(x) - x0) / (x1 - x0);
      return pts[i - 1].second + w * (pts[i].second - pts[i - 1].second);
    }
  }
  return pts.back().second;
}

}  // namespace hcpsim
