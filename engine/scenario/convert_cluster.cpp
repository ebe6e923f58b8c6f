// The `cluster:` section: presets, GPU, links, efficiencies, calibration path and faults.
#include <filesystem>

#include "engine/scenario/convert.h"
#include "engine/scenario/limits.h"
#include "engine/scenario/presets.h"
#include "engine/scenario/schema.h"

namespace hcpsim::detail {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "(none found)" : s;
}

// Reports the errors of a preset file as errors of the scenario field that named the preset.
void forward_preset_errors(const Diagnostics& inner, const std::string& preset_path,
                           const YAML::Node& at, const std::string& at_path, YamlReader& r) {
  for (const auto& d : inner.items()) {
    if (d.severity != Severity::Error) continue;
    r.error(at, at_path,
            "hardware preset file " + preset_path + ":" + std::to_string(d.line) + ": " + d.path + ": " +
                d.message);
  }
}

void gpu_fields(const YAML::Node& g, const std::string& path, YamlReader& r, GpuSpec& gpu) {
  if (auto v = r.get_string(g, path, "name")) gpu.name = *v;
  if (auto v = r.get_quantity(g, path, "bf16_tflops", QuantityKind::Compute)) gpu.bf16_flops = *v;
  if (auto v = r.get_quantity(g, path, "fp8_tflops", QuantityKind::Compute)) gpu.fp8_flops = *v;
  if (auto v = r.get_quantity(g, path, "hbm_bandwidth", QuantityKind::Bandwidth)) gpu.hbm_Bps = *v;
  if (auto v = r.get_quantity(g, path, "memory", QuantityKind::Size)) gpu.memory_bytes = *v;
  if (auto v = r.get_int(g, path, "sm_count", 1)) gpu.sm_count = static_cast<int>(*v);
}

// Loads GPU preset `name` into `gpu`; false (error recorded at `at`) when it does not exist.
bool gpu_preset(const std::string& name, const YAML::Node& at, const std::string& at_path,
                YamlReader& r, const ConvertInputs& in, GpuSpec& gpu) {
  std::string err;
  auto f = load_preset(in.hardware_dir, PresetKind::Gpu, name, err);
  if (!f) {
    const auto names = list_presets(in.hardware_dir, PresetKind::Gpu);
    std::vector<std::string> hints;
    if (auto best = schema::closest(name, names); !best.empty()) hints.push_back("did you mean '" + best + "'?");
    hints.push_back("valid GPU presets: " + join(names) +
                    "; or give a mapping {name, bf16_tflops, hbm_bandwidth, memory}");
    r.error(at, at_path, err == "not found" ? "unknown GPU preset '" + name + "'" : err, hints);
    return false;
  }
  Diagnostics inner;
  YamlReader pr(inner, nullptr, {});
  gpu.fp8_flops = 0;   // a preset without fp8_tflops has no FP8 tensor cores
  if (pr.check_map(f->root, "cluster.gpu", "cluster.gpu")) gpu_fields(f->root, "cluster.gpu", pr, gpu);
  forward_preset_errors(inner, f->path, at, at_path, r);
  if (gpu.name.empty()) gpu.name = name;
  return true;
}

void convert_fault(const YAML::Node& f, const std::string& path, YamlReader& r, Fault& out) {
  if (!r.check_map(f, path, "cluster.faults[]")) return;
  const bool has_rank = f["rank"].IsDefined();
  const bool has_nic = f["nic"].IsDefined() || f["node"].IsDefined();
  if (has_rank == has_nic) {
    r.error(f, path, "a fault is either a straggler {rank, slowdown} or a NIC fault {node, nic, bandwidth_factor | failed: true}",
            {"example: { rank: 13, slowdown: 1.3 } or { node: 2, nic: 5, bandwidth_factor: 0.5 }"});
    return;
  }
  if (has_rank) {
    out.kind = Fault::Kind::Straggler;
    if (auto v = r.get_int(f, path, "rank", 0)) out.rank = static_cast<int>(*v);
    if (!f["slowdown"].IsDefined()) r.error(f, path + ".slowdown", "a straggler fault needs 'slowdown' (>= 1)");
    if (auto v = r.get_fraction(f, path, "slowdown", 1.0, 1000.0, false)) out.slowdown = *v;
    for (const char* k : {"bandwidth_factor", "failed"})
      if (f[k].IsDefined()) r.error(f[k], path + "." + k, std::string("'") + k + "' belongs to a NIC fault, not a straggler");
    return;
  }
  if (!f["node"].IsDefined()) r.error(f, path + ".node", "a NIC fault needs 'node'");
  if (!f["nic"].IsDefined()) r.error(f, path + ".nic", "a NIC fault needs 'nic'");
  if (auto v = r.get_int(f, path, "node", 0)) out.node = static_cast<int>(*v);
  if (auto v = r.get_int(f, path, "nic", 0)) out.nic = static_cast<int>(*v);
  if (f["slowdown"].IsDefined()) r.error(f["slowdown"], path + ".slowdown", "'slowdown' belongs to a straggler fault {rank, slowdown}");
  const bool failed = r.get_bool(f, path, "failed").value_or(false);
  const bool has_factor = f["bandwidth_factor"].IsDefined();
  if (failed && has_factor) {
    r.error(f, path, "a NIC fault has either 'bandwidth_factor' or 'failed: true', not both");
  } else if (failed) {
    out.kind = Fault::Kind::FailedNic;
  } else if (has_factor) {
    out.kind = Fault::Kind::DegradedNic;
    if (auto v = r.get_fraction(f, path, "bandwidth_factor", 0.0, 1.0, true)) out.bandwidth_factor = *v;
  } else {
    r.error(f, path, "a NIC fault needs 'bandwidth_factor' (0 < x <= 1) or 'failed: true'");
  }
}

}  // namespace

void convert_gpu(const YAML::Node& g, const std::string& path, YamlReader& r, const ConvertInputs& in,
                 GpuSpec& gpu) {
  if (g.IsScalar()) {
    gpu_preset(g.Scalar(), g, path, r, in, gpu);
    return;
  }
  if (!r.check_map(g, path, "cluster.gpu")) return;
  const auto name = r.get_string(g, path, "name");
  const auto presets = list_presets(in.hardware_dir, PresetKind::Gpu);
  const bool is_preset = name && std::find(presets.begin(), presets.end(), *name) != presets.end();
  if (is_preset) {
    gpu_preset(*name, g["name"], path + ".name", r, in, gpu);
  } else if (name) {
    gpu.fp8_flops = 0;   // a GPU that is not a preset has FP8 only when it says so
    // A GPU that is not a preset must be described completely.
    for (const char* k : {"bf16_tflops", "hbm_bandwidth", "memory"}) {
      if (!g[k].IsDefined())
        r.error(g, path + "." + k,
                std::string("missing '") + k + "': GPU '" + *name +
                    "' is not a preset, so it needs bf16_tflops, hbm_bandwidth and memory",
                {"GPU presets: " + join(presets) + " (without 'name' the fields change the current GPU)"});
    }
  }
  gpu_fields(g, path, r, gpu);
}

void convert_cluster(const YAML::Node& c, YamlReader& r, const ConvertInputs& in, ClusterConfig& out,
                     bool& nics_set, bool allow_preset) {
  const std::string P = "cluster";
  if (!r.check_map(c, P, P)) return;
  if (c["preset"].IsDefined()) {
    if (!allow_preset) {
      r.error(c["preset"], "cluster.preset", "a preset file cannot name another preset");
    } else if (auto name = r.get_string(c, P, "preset")) {
      std::string err;
      auto f = load_preset(in.hardware_dir, PresetKind::Cluster, *name, err);
      if (!f) {
        const auto names = list_presets(in.hardware_dir, PresetKind::Cluster);
        std::vector<std::string> hints;
        if (auto best = schema::closest(*name, names); !best.empty()) hints.push_back("did you mean '" + best + "'?");
        hints.push_back("valid cluster presets: " + join(names) + " (folder " + in.hardware_dir + ")");
        r.error(c["preset"], "cluster.preset",
                err == "not found" ? "unknown cluster preset '" + *name + "'" : err, hints);
      } else {
        Diagnostics inner;
        YamlReader pr(inner, nullptr, {});
        convert_cluster(f->root, pr, in, out, nics_set, false);
        forward_preset_errors(inner, f->path, c["preset"], "cluster.preset", r);
        out.preset = *name;
      }
    }
  }
  if (auto v = r.get_int(c, P, "nodes", 1)) out.nodes = static_cast<int>(*v);
  if (auto v = r.get_int(c, P, "gpus_per_node", 1)) out.gpus_per_node = static_cast<int>(*v);
  if (c["gpu"].IsDefined()) convert_gpu(c["gpu"], "cluster.gpu", r, in, out.gpu);

  if (const YAML::Node n = c["intra_node"]; n.IsDefined() && r.check_map(n, "cluster.intra_node", "cluster.intra_node")) {
    const std::string p = "cluster.intra_node";
    if (auto v = r.get_quantity(n, p, "bandwidth", QuantityKind::Bandwidth)) out.intra_node_bandwidth_Bps = *v;
    if (auto v = r.get_quantity(n, p, "latency", QuantityKind::Time)) out.intra_node_latency_s = *v;
    if (auto v = r.get_bool(n, p, "nvls")) out.intra_node_nvls = *v;
  }
  if (const YAML::Node n = c["inter_node"]; n.IsDefined() && r.check_map(n, "cluster.inter_node", "cluster.inter_node")) {
    const std::string p = "cluster.inter_node";
    if (auto v = r.get_quantity(n, p, "nic_bandwidth", QuantityKind::Bandwidth)) out.nic_bandwidth_Bps = *v;
    if (auto v = r.get_int(n, p, "nics_per_node", 1)) {
      out.nics_per_node = static_cast<int>(*v);
      nics_set = true;
    }
    if (auto v = r.get_quantity(n, p, "latency", QuantityKind::Time)) out.inter_node_latency_s = *v;
    if (auto v = r.get_choice(n, p, "topology", {"fat-tree", "star"}))
      out.topology = *v == "star" ? Topology::Star : Topology::FatTree;
    if (auto v = r.get_fraction(n, p, "oversubscription", 1.0, 1e6, false)) out.oversubscription = *v;
  }
  if (const YAML::Node n = c["efficiency"]; n.IsDefined() && r.check_map(n, "cluster.efficiency", "cluster.efficiency")) {
    const std::string p = "cluster.efficiency";
    auto& e = out.efficiency;
    std::pair<const char*, double*> fields[] = {
        {"attention_forward", &e.attention_forward}, {"attention_backward", &e.attention_backward},
        {"gemm", &e.gemm}, {"memory", &e.memory}, {"intra_node_link", &e.intra_node_link},
        {"inter_node_link", &e.inter_node_link}};
    for (auto& [k, dst] : fields)
      if (auto v = r.get_fraction(n, p, k, 0.0, 1.0, true)) *dst = *v;
    if (auto v = r.get_choice(n, p, "attention_kernel", {"cudnn", "fa2", "fa3"}))
      e.attention_kernel = *v == "fa2" ? AttentionKernel::FA2 : *v == "fa3" ? AttentionKernel::FA3 : AttentionKernel::CuDNN;
    if (auto v = r.get_fraction(n, p, "comm_hbm_interference", 0.0, 10.0, false)) e.comm_hbm_interference = *v;
    if (auto v = r.get_quantity(n, p, "nccl_launch", QuantityKind::Time)) e.nccl_launch_s = *v;
    if (auto v = r.get_quantity(n, p, "ring_step_sync", QuantityKind::Time)) e.ring_step_sync_s = *v;
    if (const YAML::Node t = n["model_terms"];
        t.IsDefined() && r.check_map(t, p + ".model_terms", "cluster.efficiency.model_terms")) {
      const std::string tp = p + ".model_terms";
      std::pair<const char*, bool*> terms[] = {
          {"comm_compute_interference", &e.terms.comm_compute_interference},
          {"bandwidth_curves", &e.terms.bandwidth_curves},
          {"host_overheads", &e.terms.host_overheads},
          {"memory_operators", &e.terms.memory_operators},
          {"attention_shapes", &e.terms.attention_shapes},
          {"nccl_rails", &e.terms.nccl_rails},
          {"nccl_ring_latency", &e.terms.nccl_ring_latency},
          {"nccl_protocols", &e.terms.nccl_protocols},
          {"nccl_p2p_channels", &e.terms.nccl_p2p_channels},
          {"gemm_shapes", &e.terms.gemm_shapes},
          {"fp8_work", &e.terms.fp8_work},
          {"grad_norm", &e.terms.grad_norm}};
      for (auto& [k, dst] : terms)
        if (auto v = r.get_choice(t, tp, k, {"on", "off", "true", "false"})) *dst = *v == "on" || *v == "true";
      // `all: on/off` sets every term the mapping does not name; named terms keep their own value.
      if (auto v = r.get_choice(t, tp, "all", {"on", "off", "true", "false"}))
        for (auto& [k, dst] : terms)
          if (!t[k].IsDefined()) *dst = *v == "on" || *v == "true";
    }
  }
  if (auto v = r.get_string(c, P, "calibration"); v && v->empty()) {
    r.error(c["calibration"], "cluster.calibration", "the calibration path is empty",
            {"give a calibration file's path (written by `hcpsim calibrate`), or leave the field out"});
  } else if (v) {
    namespace fs = std::filesystem;
    fs::path cp(*v);
    // A path written in the file is relative to the file; one given as an override (on the command
    // line) is relative to the current directory, as the user typed it.
    const bool from_override = r.where(c["calibration"], "cluster.calibration").override_index > 0;
    std::error_code ec;   // fs::absolute throws on odd paths; a failure keeps the path as written
    if (cp.is_relative() && from_override) {
      if (fs::path abs = fs::absolute(cp, ec); !ec) cp = abs;
    } else if (cp.is_relative() && !in.base_dir.empty()) {
      cp = fs::path(in.base_dir) / cp;
    }
    out.calibration_path = cp.lexically_normal().string();
  }
  if (const YAML::Node n = c["faults"]; n.IsDefined()) {
    if (!n.IsSequence()) {
      r.error(n, "cluster.faults", std::string("expected a list of faults, got ") + node_kind(n));
    } else if (r.check_list_size(n, "cluster.faults", limits::kMaxFaults)) {
      out.faults.clear();
      for (std::size_t i = 0; i < n.size(); ++i) {
        Fault f;
        r.record_item(n[i], "cluster.faults[" + std::to_string(i) + "]");
        convert_fault(n[i], "cluster.faults[" + std::to_string(i) + "]", r, f);
        out.faults.push_back(f);
      }
    }
  }
}

}  // namespace hcpsim::detail
