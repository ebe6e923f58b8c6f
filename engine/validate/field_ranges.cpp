#include "engine/validate/field_ranges.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "engine/scenario/limits.h"

namespace hcpsim {

namespace {

constexpr double kWorld = static_cast<double>(limits::kMaxWorldSize);

std::string shown(double si, const FieldRange& r) {
  char buf[48];
  const double v = si / r.unit_factor;
  if (!*r.unit && std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);   // counts print exactly
  else
    std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::string(buf) + (*r.unit ? std::string(" ") + r.unit : std::string());
}

// The value of each bounded field of a scenario, by path (absent optional fields are skipped).
struct FieldValue {
  std::string path;
  double value;
};

std::vector<FieldValue> values_of(const Scenario& s) {
  const auto& m = s.model;
  const auto& c = s.cluster;
  std::vector<FieldValue> v{
      {"model.num_layers", static_cast<double>(m.num_layers)},
      {"model.hidden_size", static_cast<double>(m.hidden_size)},
      {"model.num_attention_heads", static_cast<double>(m.num_attention_heads)},
      {"model.num_query_groups", static_cast<double>(m.num_query_groups)},
      {"model.seq_length", static_cast<double>(m.seq_length)},
      {"model.tensor_model_parallel_size", static_cast<double>(m.tensor_model_parallel_size)},
      {"model.pipeline_model_parallel_size", static_cast<double>(m.pipeline_model_parallel_size)},
      {"model.context_parallel_size", static_cast<double>(m.context_parallel_size)},
      {"train.micro_batch_size", static_cast<double>(s.train.micro_batch_size)},
      {"cluster.nodes", static_cast<double>(c.nodes)},
      {"cluster.gpus_per_node", static_cast<double>(c.gpus_per_node)},
      {"cluster.gpu.bf16_tflops", c.gpu.bf16_flops},
      {"cluster.gpu.hbm_bandwidth", c.gpu.hbm_Bps},
      {"cluster.gpu.memory", c.gpu.memory_bytes},
      {"cluster.intra_node.bandwidth", c.intra_node_bandwidth_Bps},
      {"cluster.intra_node.latency", c.intra_node_latency_s},
      {"cluster.inter_node.nic_bandwidth", c.nic_bandwidth_Bps},
      {"cluster.inter_node.nics_per_node", static_cast<double>(c.nics_per_node)},
      {"cluster.inter_node.latency", c.inter_node_latency_s},
      {"cluster.inter_node.oversubscription", c.oversubscription},
      {"cluster.efficiency.attention_forward", c.efficiency.attention_forward},
      {"cluster.efficiency.attention_backward", c.efficiency.attention_backward},
      {"cluster.efficiency.gemm", c.efficiency.gemm},
      {"cluster.efficiency.memory", c.efficiency.memory},
      {"cluster.efficiency.intra_node_link", c.efficiency.intra_node_link},
      {"cluster.efficiency.inter_node_link", c.efficiency.inter_node_link},
      {"simulation.layers", static_cast<double>(s.simulation.layers)},
      {"model.virtual_pipeline_model_parallel_size", static_cast<double>(m.virtual_pipeline_model_parallel_size)},
      {"model.recompute_num_layers", static_cast<double>(m.recompute_num_layers)},
      {"model.vocab_size", static_cast<double>(m.vocab_size)},
      {"cluster.gpu.sm_count", static_cast<double>(c.gpu.sm_count)},
  };
  // Optional fields whose 0 means "not set" / "none" are bounded only when given.
  if (s.train.global_batch_size != 0)
    v.push_back({"train.global_batch_size", static_cast<double>(s.train.global_batch_size)});
  if (c.gpu.fp8_flops != 0) v.push_back({"cluster.gpu.fp8_tflops", c.gpu.fp8_flops});
  if (m.decoder_first_pipeline_num_layers)
    v.push_back({"model.decoder_first_pipeline_num_layers", static_cast<double>(*m.decoder_first_pipeline_num_layers)});
  if (m.decoder_last_pipeline_num_layers)
    v.push_back({"model.decoder_last_pipeline_num_layers", static_cast<double>(*m.decoder_last_pipeline_num_layers)});
  if (s.hyperparallel.ulysses_degree != 0)
    v.push_back({"hyperparallel.ulysses_degree", static_cast<double>(s.hyperparallel.ulysses_degree)});
  if (m.dsa.enabled) {
    v.push_back({"model.dsa.index_topk", static_cast<double>(m.dsa.index_topk)});
    v.push_back({"model.dsa.index_n_heads", static_cast<double>(m.dsa.index_n_heads)});
    v.push_back({"model.dsa.index_head_dim", static_cast<double>(m.dsa.index_head_dim)});
  }
  if (c.efficiency.comm_hbm_interference != 0)
    v.push_back({"cluster.efficiency.comm_hbm_interference", c.efficiency.comm_hbm_interference});
  if (c.efficiency.nccl_launch_s != 0) v.push_back({"cluster.efficiency.nccl_launch", c.efficiency.nccl_launch_s});
  if (c.efficiency.ring_step_sync_s != 0)
    v.push_back({"cluster.efficiency.ring_step_sync", c.efficiency.ring_step_sync_s});
  if (m.ffn_hidden_size != 0) v.push_back({"model.ffn_hidden_size", static_cast<double>(m.ffn_hidden_size)});
  if (m.kv_channels != 0) v.push_back({"model.kv_channels", static_cast<double>(m.kv_channels)});
  for (std::size_t i = 0; i < m.hierarchical_context_parallel_sizes.size(); ++i)
    v.push_back({"model.hierarchical_context_parallel_sizes[" + std::to_string(i) + "]",
                 static_cast<double>(m.hierarchical_context_parallel_sizes[i])});
  for (std::size_t i = 0; i < c.faults.size(); ++i) {
    const Fault& f = c.faults[i];
    const std::string p = "cluster.faults[" + std::to_string(i) + "]";
    if (f.kind == Fault::Kind::Straggler) v.push_back({p + ".slowdown", f.slowdown});
    if (f.kind == Fault::Kind::DegradedNic) v.push_back({p + ".bandwidth_factor", f.bandwidth_factor});
  }
  return v;
}

// "cluster.faults[3].slowdown" -> "cluster.faults[].slowdown" (the table's spelling).
std::string table_path(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] == '[') {
      while (i + 1 < path.size() && path[i + 1] != ']') ++i;
    }
  }
  return out;
}

}  // namespace

const std::vector<FieldRange>& field_ranges() {
  static const std::vector<FieldRange> table{
      {"model.num_layers", 1, 4096},
      {"model.hidden_size", 1, 1048576},
      {"model.ffn_hidden_size", 1, 4194304},
      {"model.num_attention_heads", 1, 16384},
      {"model.num_query_groups", 1, 16384},
      {"model.kv_channels", 1, 16384},
      {"model.seq_length", 1, 1073741824},
      {"model.tensor_model_parallel_size", 1, kWorld},
      {"model.pipeline_model_parallel_size", 1, kWorld},
      {"model.context_parallel_size", 1, kWorld},
      {"model.hierarchical_context_parallel_sizes[]", 1, kWorld},
      {"train.micro_batch_size", 1, 65536},
      {"cluster.nodes", 1, kWorld},
      {"cluster.gpus_per_node", 1, 1024},
      {"cluster.gpu.bf16_tflops", 1e9, 1e18, "TFLOPS", 1e12},
      {"cluster.gpu.hbm_bandwidth", 1e6, 1e16, "GB/s", 1e9},
      {"cluster.gpu.memory", 1e6, 1e15, "GB", 1e9},
      {"cluster.intra_node.bandwidth", 1e6, 1e16, "GB/s", 1e9},
      {"cluster.intra_node.latency", 1e-12, 10, "us", 1e-6},
      {"cluster.inter_node.nic_bandwidth", 1e6, 1e16, "GB/s", 1e9},
      {"cluster.inter_node.nics_per_node", 1, 1024},
      {"cluster.inter_node.latency", 1e-12, 10, "us", 1e-6},
      {"cluster.inter_node.oversubscription", 1, 1e6},
      {"cluster.efficiency.attention_forward", 1e-3, 1},
      {"cluster.efficiency.attention_backward", 1e-3, 1},
      {"cluster.efficiency.gemm", 1e-3, 1},
      {"cluster.efficiency.memory", 1e-3, 1},
      {"cluster.efficiency.intra_node_link", 1e-3, 1},
      {"cluster.efficiency.inter_node_link", 1e-3, 1},
      {"cluster.faults[].slowdown", 1, 1000},
      {"cluster.faults[].bandwidth_factor", 1e-3, 1},
      {"simulation.layers", 1, 4096},
      {"model.virtual_pipeline_model_parallel_size", 1, 1024},
      {"model.recompute_num_layers", 1, 4096},
      {"model.decoder_first_pipeline_num_layers", 1, 4096},
      {"model.decoder_last_pipeline_num_layers", 1, 4096},
      {"model.vocab_size", 1, 16777216},
      {"train.global_batch_size", 1, 16777216},
      {"cluster.gpu.fp8_tflops", 1e9, 1e18, "TFLOPS", 1e12},
      {"cluster.gpu.sm_count", 1, 1024},
      {"cluster.efficiency.comm_hbm_interference", 1e-3, 100},
      {"cluster.efficiency.nccl_launch", 1e-12, 10, "us", 1e-6},
      {"cluster.efficiency.ring_step_sync", 1e-12, 10, "us", 1e-6},
      {"hyperparallel.ulysses_degree", 1, 262144},
      {"model.dsa.index_topk", 1, 1073741824},
      {"model.dsa.index_n_heads", 1, 16384},
      {"model.dsa.index_head_dim", 1, 16384},
  };
  return table;
}

void add_scenario_diagnostic(Diagnostics& d, const Scenario& s, Severity severity, const std::string& path,
                             std::string message, std::vector<std::string> hints) {
  const SourceLocation loc = s.location_of(path);
  if (loc.override_index > 0) message = "<override " + std::to_string(loc.override_index) + "> " + message;
  d.add({severity, path, loc.line, loc.column, std::move(message), std::move(hints)});
}

Diagnostics check_field_ranges(const Scenario& s) {
  Diagnostics d;
  for (const FieldValue& f : values_of(s)) {
    const std::string key = table_path(f.path);
    const FieldRange* r = nullptr;
    for (const auto& e : field_ranges())
      if (e.path == key) r = &e;
    if (r == nullptr) continue;
    if (f.value >= r->lo && f.value <= r->hi) continue;   // false for NaN too
    std::string what;
    if (!std::isfinite(f.value)) what = "is not a finite number after unit conversion";
    else if (f.value < r->lo) what = "is below the smallest valid value " + shown(r->lo, *r);
    else what = "is above the largest valid value " + shown(r->hi, *r);
    add_scenario_diagnostic(d, s, Severity::Error, f.path,
                            shown(f.value, *r) + " " + what + " (valid range " + shown(r->lo, *r) + " to " +
                                shown(r->hi, *r) + ")",
                            {"docs/scenario.md \"Valid ranges\" lists the range of every field"});
  }
  return d;
}

}  // namespace hcpsim
