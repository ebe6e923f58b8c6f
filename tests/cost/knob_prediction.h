#pragma once
// Scenarios for the knob and precedence tests, loaded from YAML text (so that whether a field was
// stated is what the loader records) and predicted with the analytic backend.
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::test {

// One H100 alone: attention and the layer's GEMMs on one GPU, no communication.
inline const char* kSingleGpu =
    "name: knob-single\n"
    "model: {num_layers: 1, hidden_size: 4096, ffn_hidden_size: 14336, num_attention_heads: 32,\n"
    "        num_query_groups: 8, kv_channels: 128, seq_length: 16384, context_parallel_size: 1}\n"
    "cluster: {nodes: 1, gpus_per_node: 1, gpu: h100-sxm}\n"
    "simulation: {backend: analytic, layers: 1}\n";

// A p2p ring of 8 GPUs on one DGX H100, short sequence: the ring's transfers are exposed.
inline const char* kRingComm =
    "name: knob-ring-comm\n"
    "model: {num_layers: 1, hidden_size: 4096, num_attention_heads: 32, num_query_groups: 8,\n"
    "        kv_channels: 128, seq_length: 8192, context_parallel_size: 8, cp_comm_type: p2p}\n"
    "cluster: {preset: dgx-h100, nodes: 1}\n"
    "simulation: {backend: analytic, layers: 1}\n";

// The same ring at 64k tokens: attention dominates and the transfers run under it.
inline const char* kRingCompute =
    "name: knob-ring-compute\n"
    "model: {num_layers: 1, hidden_size: 4096, num_attention_heads: 32, num_query_groups: 8,\n"
    "        kv_channels: 128, seq_length: 65536, context_parallel_size: 8, cp_comm_type: p2p}\n"
    "cluster: {preset: dgx-h100, nodes: 1}\n"
    "simulation: {backend: analytic, layers: 1}\n";

// A p2p ring over two DGX H100 nodes: two of its steps cross the network.
inline const char* kTwoNodes =
    "name: knob-two-nodes\n"
    "model: {num_layers: 1, hidden_size: 4096, num_attention_heads: 32, num_query_groups: 8,\n"
    "        kv_channels: 128, seq_length: 16384, context_parallel_size: 16, cp_comm_type: p2p}\n"
    "cluster: {preset: dgx-h100, nodes: 2}\n"
    "simulation: {backend: analytic, layers: 1}\n";

// Tensor parallel 8 without sequence parallelism: each layer all-reduces its activations in the node.
inline const char* kTensorParallel =
    "name: knob-tp8\n"
    "model: {num_layers: 1, hidden_size: 8192, ffn_hidden_size: 28672, num_attention_heads: 64,\n"
    "        num_query_groups: 8, kv_channels: 128, seq_length: 8192, tensor_model_parallel_size: 8,\n"
    "        sequence_parallel: false}\n"
    "cluster: {preset: dgx-h100, nodes: 1}\n"
    "simulation: {backend: analytic, layers: 1}\n";

inline Scenario load_knob_scenario(const std::string& yaml, const std::vector<std::string>& overrides,
                                   Diagnostics* warnings = nullptr) {
  LoadOptions lo;
  lo.overrides = overrides;
  lo.hardware_dir = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
  Scenario s = load_scenario_string(yaml, lo, "knob.yaml", warnings);
  Diagnostics d = validate(s);
  if (d.has_errors()) throw std::invalid_argument(format_diagnostics(d, "knob.yaml"));
  if (warnings != nullptr) warnings->append(d);
  return s;
}

inline Report predict_knob(const std::string& yaml, const std::vector<std::string>& overrides) {
  const Scenario s = load_knob_scenario(yaml, overrides);
  AnalyticBackend backend;
  SimulateOptions o;
  o.keep_events = false;
  return simulate_scenario(s, backend, o).report;
}

}  // namespace hcpsim::test
