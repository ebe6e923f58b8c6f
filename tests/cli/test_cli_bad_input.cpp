// Table of malformed inputs for `hcpsim validate` / `hcpsim layout`. Each case: the scenario text (or
// none), the extra arguments, the expected exit code (1 invalid input, 2 usage error) and substrings the
// diagnostics must contain (FILE stands for the case's file name). Never a crash: the exit code must
// be exactly the expected one, not a signal.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "run_command.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

// A valid scenario; line numbers: name 1, model 2, num_layers 3, hidden_size 4, heads 5, groups 6,
// seq_length 7, cp 8, cluster 9, preset 10.
const std::string kBase =
    "name: bad\n"
    "model:\n"
    "  num_layers: 32\n"
    "  hidden_size: 4096\n"
    "  num_attention_heads: 32\n"
    "  num_query_groups: 8\n"
    "  seq_length: 131072\n"
    "  context_parallel_size: 8\n"
    "cluster:\n"
    "  preset: dgx-h100\n";

// kBase with one substring replaced.
std::string R(const std::string& from, const std::string& to) {
  std::string s = kBase;
  const auto at = s.find(from);
  if (at == std::string::npos) throw std::logic_error("test table: '" + from + "' not in the base scenario");
  return s.replace(at, from.size(), to);
}
// `s` with one substring replaced.
std::string Sub(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  if (at == std::string::npos) throw std::logic_error("test table: '" + from + "' not in the scenario");
  return s.replace(at, from.size(), to);
}
// kBase plus lines appended under `cluster:` (they start at line 11).
std::string C(const std::string& lines) { return kBase + lines; }

struct Case {
  const char* name;
  std::string yaml;                 // written to FILE; "<none>" = no file is written
  std::string args;                 // after "validate FILE" (or the whole argument list when it starts with '!')
  int exit_code;
  std::vector<std::string> expect;  // substrings of stderr
};

std::vector<Case> cases() {
  const std::string none = "<none>";
  return {
      // --- YAML text problems
      {"syntax_unclosed_flow", "name: x\nmodel: [1, 2\n", "", 1, {"FILE:3:1: error: YAML syntax error"}},
      {"syntax_tab_indent", "name: x\nmodel:\n\tnum_layers: 2\n", "", 1, {"FILE:3:", "YAML syntax error"}},
      {"syntax_bad_indent", "name: x\nmodel:\n  num_layers: 2\n hidden_size: 3\n", "", 1, {"FILE:4:2: error: YAML syntax error"}},
      {"empty_file", "", "", 1, {"FILE:1:1: error: the scenario is empty"}},
      {"whitespace_only", "\n   \n\n", "", 1, {"FILE:1:1: error: the scenario is empty"}},
      {"comments_only", "# nothing here\n", "", 1, {"FILE:1:1: error: the scenario has no YAML content"}},
      {"root_is_list", "- a\n- b\n", "", 1, {"FILE:1:1: error: expected a mapping of fields, got a list"}},
      {"root_is_scalar", "hello\n", "", 1, {"expected a mapping of fields, got a value"}},
      {"two_documents", kBase + "---\nname: other\n", "", 1, {"FILE:12:1: error: the scenario holds 2 YAML documents"}},
      {"non_utf8_byte", "name: \xff\n", "", 1, {"FILE:1:7: error: the scenario contains a byte 0xFF that is not valid UTF-8"}},
      {"truncated_utf8", R("name: bad", "name: b\xC3"), "", 1, {"FILE:1:8:", "not valid UTF-8"}},
      {"nul_byte", std::string("name: x\0y\n", 10), "", 1, {"FILE:1:8: error: the scenario contains a control character 0x00"}},
      // --- required fields, names, sections
      {"missing_name", kBase.substr(10), "", 1, {"error: name: missing required field 'name'"}},
      {"invalid_name", R("name: bad", "name: Llama 3"), "", 1, {"FILE:1:7: error: name: name 'Llama 3' may only use a-z"}},
      {"missing_model", "name: x\ncluster: {preset: dgx-h100}\n", "", 1, {"error: model: missing required section 'model'"}},
      {"missing_seq_length", R("  seq_length: 131072\n", ""), "", 1, {"error: model.seq_length: missing required field 'seq_length'"}},
      {"missing_num_layers", R("  num_layers: 32\n", ""), "", 1, {"model.num_layers: missing required field 'num_layers'"}},
      {"section_is_scalar", "name: x\nmodel: 5\n", "", 1, {"FILE:2:8: error: model: expected a mapping of fields, got a value"}},
      // --- wrong types and values
      {"int_is_text", R("num_layers: 32", "num_layers: abc"), "", 1, {"FILE:3:15: error: model.num_layers: expected a whole number, got 'abc'"}},
      {"int_is_fraction", R("hidden_size: 4096", "hidden_size: 4096.5"), "", 1, {"FILE:4:16: error: model.hidden_size: expected a whole number, got '4096.5'"}},
      {"int_is_list", R("context_parallel_size: 8", "context_parallel_size: [8]"), "", 1, {"FILE:8:26: error: model.context_parallel_size: expected a whole number, got a list"}},
      {"negative_seq_length", R("seq_length: 131072", "seq_length: -5"), "", 1, {"FILE:7:15: error: model.seq_length: must be positive, got -5"}},
      {"zero_tp", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  tensor_model_parallel_size: 0\n"), "", 1, {"FILE:9:31: error: model.tensor_model_parallel_size: must be positive, got 0"}},
      {"zero_nodes", C("  nodes: 0\n"), "", 1, {"FILE:11:10: error: cluster.nodes: must be positive, got 0"}},
      {"huge_int", R("num_layers: 32", "num_layers: 99999999999999999999"), "", 1, {"FILE:3:15: error: model.num_layers: number '99999999999999999999' is too large"}},
      {"bool_is_text", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  sequence_parallel: maybe\n"), "", 1, {"FILE:9:22: error: model.sequence_parallel: expected true or false, got 'maybe'"}},
      {"enum_typo", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  attn_mask_type: causual\n"), "", 1, {"FILE:9:19: error: model.attn_mask_type: invalid value 'causual' (valid values: causal, no_mask)", "hint: did you mean 'causal'?"}},
      {"dtype_unsupported", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  params_dtype: fp32\n"), "", 1, {"model.params_dtype: invalid value 'fp32' (valid values: bf16, fp16)"}},
      {"empty_backend", kBase + "simulation: {backend: ''}\n", "", 1, {"FILE:11:23: error: simulation.backend: backend name is empty"}},
      {"calibration_is_list", C("  calibration: [a, b]\n"), "", 1, {"FILE:11:16: error: cluster.calibration: expected a text value, got a list"}},
      {"hcp_not_a_list", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  hierarchical_context_parallel_sizes: 4\n"), "", 1, {"FILE:9:40: error: model.hierarchical_context_parallel_sizes: expected a list of sizes"}},
      {"hcp_zero_level", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  hierarchical_context_parallel_sizes: [0, 8]\n"), "", 1, {"FILE:9:41: error: model.hierarchical_context_parallel_sizes[0]: must be positive, got 0"}},
      {"passes_unknown", kBase + "simulation:\n  passes: [forward, sideways]\n", "", 1, {"FILE:12:21: error: simulation.passes[1]: unknown pass 'sideways' (valid values: forward, backward)"}},
      {"passes_empty", kBase + "simulation:\n  passes: []\n", "", 1, {"FILE:12:11: error: simulation.passes: expected a non-empty list"}},
      {"fold_unknown", kBase + "simulation:\n  fold: sometimes\n", "", 1, {"FILE:12:9: error: simulation.fold: invalid value 'sometimes' (valid values: auto, off)"}},
      // --- units
      {"bandwidth_bare_number", C("  intra_node: {bandwidth: 450}\n"), "", 1, {"FILE:11:27: error: cluster.intra_node.bandwidth: '450' has no unit; a bandwidth needs one of: GB/s, Gb/s, TB/s, MB/s"}},
      {"latency_bare_number", C("  inter_node:\n    latency: 5\n"), "", 1, {"FILE:12:14: error: cluster.inter_node.latency: '5' has no unit; a time needs one of: ns, us, ms, s"}},
      {"unknown_time_unit", C("  inter_node:\n    latency: 5 parsecs\n"), "", 1, {"FILE:12:14: error: cluster.inter_node.latency: unknown time unit 'parsecs'"}},
      {"size_unit_for_bandwidth", C("  inter_node:\n    nic_bandwidth: 50 GB\n"), "", 1, {"cluster.inter_node.nic_bandwidth: unknown bandwidth unit 'GB'"}},
      {"negative_latency", C("  intra_node: {latency: -2 us}\n"), "", 1, {"cluster.intra_node.latency: time must be positive, got '-2 us'"}},
      {"gpu_memory_bare", C("  gpu: {name: x1, bf16_tflops: 100 TFLOPS, hbm_bandwidth: 1 TB/s, memory: 80}\n"), "", 1, {"cluster.gpu.memory: '80' has no unit; a size needs one of: MB, GB, MiB, GiB"}},
      // --- unknown keys and presets
      {"unknown_top_key", R("model:", "modle:"), "", 1, {"FILE:2:1: error: modle: unknown key 'modle'", "hint: did you mean 'model'?", "model: missing required section"}},
      {"unknown_model_key", R("hidden_size: 4096", "hidden_sise: 4096"), "", 1, {"FILE:4:3: error: model.hidden_sise: unknown key 'hidden_sise'", "hint: did you mean 'hidden_size'?"}},
      {"unknown_key_far_from_all", C("  warp_drive: on\n"), "", 1, {"FILE:11:3: error: cluster.warp_drive: unknown key 'warp_drive'", "hint: nearest valid keys: intra_node, preset, calibration"}},
      // --- Bridge fields that are real but not modelled: a warning naming what is ignored, exit 0;
      // an unknown backend: an error naming the valid ones
      {"bridge_field_ignored", R("  seq_length: 131072\n", "  seq_length: 131072\n  hidden_dropout: 0.1\n"), "", 0, {"FILE:8:3: warning: model.hidden_dropout: Megatron-Bridge field accepted but not modelled by hcpsim: dropout is ignored"}},
      {"bridge_section_ignored", kBase + "optimizer:\n  lr: 0.0003\n", "", 0, {"FILE:11:1: warning: optimizer: Megatron-Bridge field accepted but not modelled by hcpsim: the optimizer section is ignored"}},
      {"bridge_override_ignored", kBase, "model.attention_dropout=0.0", 0, {"warning:", "model.attention_dropout", "dropout is ignored"}},
      {"unknown_backend", kBase + "simulation:\n  backend: simgird\n", "", 1, {"FILE:12:3: error: simulation.backend: unknown backend 'simgird'; valid backends in this build:", "analytic"}},
      {"duplicate_key", R("  seq_length: 131072\n", "  seq_length: 131072\n  seq_length: 65536\n"), "", 1, {"FILE:8:3: error: model.seq_length: duplicate key 'seq_length'"}},
      {"unknown_cluster_preset", R("preset: dgx-h100", "preset: dgx-h10"), "", 1, {"FILE:10:11: error: cluster.preset: unknown cluster preset 'dgx-h10'", "hint: did you mean 'dgx-h100'?", "dgx-a100, dgx-h100, dgx-h200, gb200-nvl72"}},
      {"unknown_gpu_preset", C("  gpu: h100-pcie\n"), "", 1, {"FILE:11:8: error: cluster.gpu: unknown GPU preset 'h100-pcie'", "a100-sxm-80gb, b200, gb200, h100-sxm, h200-sxm"}},
      {"gpu_mapping_incomplete", C("  gpu: {name: my-gpu, bf16_tflops: 500 TFLOPS}\n"), "", 1, {"cluster.gpu.hbm_bandwidth: missing 'hbm_bandwidth'", "cluster.gpu.memory: missing 'memory'"}},
      {"efficiency_above_one", C("  efficiency: {gemm: 1.5}\n"), "", 1, {"FILE:11:22: error: cluster.efficiency.gemm: value 1.5 is outside the valid range (0, 1]"}},
      {"topology_unknown", C("  inter_node: {topology: torus}\n"), "", 1, {"cluster.inter_node.topology: invalid value 'torus' (valid values: fat-tree, star)"}},
      {"world_too_large", C("  nodes: 2000000000\n"), "", 1, {"cluster.nodes: world size nodes x gpus_per_node = 16000000000 is larger than hcpsim's limit of 262144 GPUs"}},
      {"cp_too_large", R("context_parallel_size: 8", "context_parallel_size: 2000000000"), "", 1, {"FILE:8:26: error: model.context_parallel_size: 2000000000 is larger than hcpsim's limit"}},
      {"deeply_nested", "name: x\nmodel: " + std::string(5000, '[') + std::string(5000, ']') + "\n", "", 1, {"FILE:2:"}},
      // --- faults
      {"fault_two_kinds", C("  faults:\n    - {rank: 1, node: 0, slowdown: 2}\n"), "", 1, {"FILE:12:7: error: cluster.faults[0]: a fault is either a straggler"}},
      {"fault_slowdown_below_one", C("  faults: [{rank: 1, slowdown: 0.5}]\n"), "", 1, {"cluster.faults[0].slowdown: value 0.5 is outside the valid range [1, 1000]"}},
      {"fault_rank_out_of_range", C("  faults:\n    - {rank: 99, slowdown: 1.5}\n"), "", 1, {"FILE:12:8: error: cluster.faults[0].rank: rank 99 is out of range (world size 8, ranks 0..7)"}},
      {"fault_nic_out_of_range", C("  faults:\n    - {node: 0, nic: 8, bandwidth_factor: 0.5}\n"), "", 1, {"FILE:12:17: error: cluster.faults[0].nic: nic 8 is out of range (nics 0..7)"}},
      {"fault_bandwidth_factor_zero", C("  faults: [{node: 0, nic: 1, bandwidth_factor: 0}]\n"), "", 1, {"cluster.faults[0].bandwidth_factor: value 0 is outside the valid range (0, 1]"}},
      // --- Megatron / TE / Bridge rules
      {"cp_comm_allgather", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  cp_comm_type: allgather\n"), "", 1, {"FILE:9:17: error: model.cp_comm_type: Unsupported communication type: allgather!", "hint: Transformer Engine spells it 'all_gather'"}},
      {"cp_comm_unknown", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  cp_comm_type: ring\n"), "", 1, {"model.cp_comm_type: Unsupported communication type: ring!"}},
      {"cp_comm_list_length", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  cp_comm_type: [p2p, a2a]\n"), "", 1, {"FILE:9:3: error: model.cp_comm_type: Length of cp_comm_type (2) must equal num_layers (32)."}},
      {"world_not_divisible", R("context_parallel_size: 8", "context_parallel_size: 16"), "", 1, {"FILE:8:3: error: model.context_parallel_size: world_size (8) is not divisible by 16 (tp*cp*pp)"}},
      {"heads_not_multiple_of_tp", kBase, "model.tensor_model_parallel_size=3 cluster.gpus_per_node=24", 1, {"model.num_attention_heads: num_attention_heads (32) must be a multiple of tensor_model_parallel_size (3)."}},
      {"groups_not_dividing_heads", R("num_query_groups: 8", "num_query_groups: 6"), "", 1, {"FILE:6:3: error: model.num_query_groups: The number of attention heads must be divisible by the number of GQA groups!"}},
      {"seq_not_multiple", R("seq_length: 131072", "seq_length: 131000"), "", 1, {"FILE:7:3: error: model.seq_length: seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1."}},
      {"a2a_beyond_kv_heads", kBase, "model.cp_comm_type=a2a model.context_parallel_size=16 cluster.nodes=2", 1, {"cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V. Found num_heads_q = 32, num_heads_kv = 8, cp_size = 16.", "hierarchical_context_parallel_sizes=[8, 2]"}},
      {"hcp_missing", kBase, "model.cp_comm_type=a2a+p2p", 1, {"hierarchical_context_parallel_sizes must be set when cp_comm_type contains 'a2a+p2p'. Without it, CP communication is silently disabled"}},
      {"hcp_product", kBase, "model.cp_comm_type=a2a+p2p \"model.hierarchical_context_parallel_sizes=[2,2]\"", 1, {"Product of hierarchical_context_parallel_sizes [2, 2] (=4) must equal context_parallel_size (=8)."}},
      {"decentralized_hcp", kBase, "dist.use_decentralized_pg=true model.cp_comm_type=a2a+p2p \"model.hierarchical_context_parallel_sizes=[4,2]\"", 1, {"dist.use_decentralized_pg: <override 1> Decentralized process groups (use_decentralized_pg=True) do not support"}},
      {"bad_order", kBase + "dist: {order: tp-dp-cp-pp}\n", "", 1, {"FILE:11:8: error: dist.order: unsupported order 'tp-dp-cp-pp'"}},
      // --- overrides
      {"override_unknown_key", kBase, "model.context_paralel_size=4", 1, {"model.context_paralel_size: <override 1: 'model.context_paralel_size=4'> unknown field", "hint: did you mean 'model.context_parallel_size'?"}},
      {"override_not_key_value", kBase, "context_parallel_size", 2, {"argument 'context_parallel_size' (override 1) is not of the form key.path=value"}},
      {"override_bad_yaml", kBase, "\"model.hierarchical_context_parallel_sizes=[2,\"", 1, {"<override 1:", "is not valid YAML"}},
      {"override_empty_value", kBase, "model.num_layers=", 1, {"model.num_layers: <override 1: 'model.num_layers='> no value after '='"}},
      {"override_wrong_type", kBase, "cluster.nodes=2 model.context_parallel_size=eight", 1, {"model.context_parallel_size: <override 2: 'model.context_parallel_size=eight'> expected a whole number, got 'eight'"}},
      {"override_into_scalar", kBase, "name.first=x", 1, {"name.first: <override 1: 'name.first=x'> unknown field 'name.first'"}},
      // --- files and usage
      {"missing_file", none, "!validate /no/such/dir/scenario.yaml", 1, {"/no/such/dir/scenario.yaml: error: cannot open scenario file '/no/such/dir/scenario.yaml': no such file"}},
      {"directory_as_file", none, "!validate DIR", 1, {"is a directory, not a scenario file"}},
      {"layout_missing_file", none, "!layout /no/such.yaml --format json", 1, {"no such file"}},
      {"layout_invalid_scenario", R("seq_length: 131072", "seq_length: 131000"), "!layout FILE --format json", 1, {"seq-length should be a multiple"}},
      {"no_file_argument", none, "!validate", 2, {"is required", "Run with --help"}},
      {"unknown_option", kBase, "!validate FILE --frobnicate", 2, {"--frobnicate"}},
      {"layout_bad_format", kBase, "!layout FILE --format xml", 2, {"xml not in {text,json}"}},
      {"unknown_command", none, "!frobnicate", 2, {"unknown command 'frobnicate'", "valid commands: ", "simulate"}},
      // --- hardening: found by mutating scenarios; each used to crash, hang or print a wrong number
      {"long_name", R("name: bad", "name: " + std::string(26000, 'a')), "", 1, {"FILE:1:7: error: name: text of 26000 characters; at most 128 are allowed here"}},
      {"long_name_invalid_chars", R("name: bad", "name: " + std::string(30000, 'A')), "", 1, {"FILE:1:7: error: name: text of 30000 characters; at most 128"}},
      {"long_text_field", kBase + "description: " + std::string(5000, 'x') + "\n", "", 1, {"FILE:11:14: error: description: text of 5000 characters; at most 4096"}},
      {"long_unknown_key", C("  " + std::string(1000, 'k') + ": 1\n"), "", 1, {"FILE:11:3: error: cluster.", "unknown key 'kkkkkkkkkk", "(1000 characters)'"}},
      {"overlong_key_is_yaml_error", C("  " + std::string(20000, 'k') + ": 1\n"), "", 1, {"FILE:11:", "YAML syntax error"}},
      {"long_quantity", C("  intra_node: {bandwidth: " + std::string(10000, '9') + " GB/s}\n"), "", 1, {"FILE:11:27: error: cluster.intra_node.bandwidth:", "(10005 characters)' is not a bandwidth"}},
      {"huge_nics_per_node", C("  inter_node: {nics_per_node: 1073741824}\n"), "", 1, {"FILE:11:16: error: cluster.inter_node.nics_per_node: 1073741824 is above the largest valid value 1024 (valid range 1 to 1024)"}},
      {"denormal_bandwidth", C("  intra_node: {bandwidth: 5e-324 GB/s}\n"), "", 1, {"FILE:11:16: error: cluster.intra_node.bandwidth: 4.94066e-324 GB/s is below the smallest valid value 0.001 GB/s (valid range 0.001 GB/s to 1e+07 GB/s)"}},
      {"bandwidth_overflows_after_unit", C("  inter_node: {nic_bandwidth: 1e300 TB/s}\n"), "", 1, {"FILE:11:31: error: cluster.inter_node.nic_bandwidth: '1e300 TB/s' is too large to be a bandwidth"}},
      {"tiny_latency", C("  inter_node: {latency: 1e-30 s}\n"), "", 1, {"cluster.inter_node.latency: 1e-24 us is below the smallest valid value 1e-06 us"}},
      {"tiny_efficiency", C("  efficiency: {attention_forward: 1e-300}\n"), "", 1, {"FILE:11:16: error: cluster.efficiency.attention_forward: 1e-300 is below the smallest valid value 0.001"}},
      {"huge_kv_channels", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  kv_channels: 2147483647\n"), "", 1, {"FILE:9:3: error: model.kv_channels: 2147483647 is above the largest valid value 16384"}},
      {"huge_seq_length", R("seq_length: 131072", "seq_length: 4611686018427387904"), "", 1, {"model.seq_length: number 4611686018427387904 is too large (at most 2147483647)"}},
      {"seq_length_above_range", R("seq_length: 131072", "seq_length: 2147483600"), "", 1, {"FILE:7:3: error: model.seq_length: 2147483600 is above the largest valid value 1073741824"}},
      {"huge_micro_batch", kBase + "train: {micro_batch_size: 100000000}\n", "", 1, {"FILE:11:9: error: train.micro_batch_size: 100000000 is above the largest valid value 65536"}},
      {"duplicate_nic_fault", C("  faults:\n    - {node: 0, nic: 1, bandwidth_factor: 0.5}\n    - {node: 0, nic: 1, bandwidth_factor: 0.5}\n"), "", 1, {"FILE:13:17: error: cluster.faults[1].nic: NIC 1 of node 0 already has a fault (cluster.faults[0])"}},
      {"duplicate_straggler", C("  faults:\n    - {rank: 3, slowdown: 2}\n    - {rank: 3, slowdown: 2}\n"), "", 1, {"FILE:13:8: error: cluster.faults[1].rank: rank 3 already has a fault (cluster.faults[0])"}},
      {"tiny_bandwidth_factor", C("  faults: [{node: 0, nic: 1, bandwidth_factor: 1e-300}]\n"), "", 1, {"cluster.faults[0].bandwidth_factor: 1e-300 is below the smallest valid value 0.001"}},
      {"every_nic_of_node_failed", R("context_parallel_size: 8", "context_parallel_size: 16") + "  nodes: 2\n  inter_node: {nics_per_node: 2}\n  faults:\n    - {node: 1, nic: 0, failed: true}\n    - {node: 1, nic: 1, failed: true}\n", "", 1, {"FILE:15:7: error: cluster.faults[1]: every NIC of node 1 has failed (2 of 2), so its GPUs cannot reach the other nodes"}},
      {"odd_seq_length_cp1", Sub(R("context_parallel_size: 8", "context_parallel_size: 1"), "seq_length: 131072", "seq_length: 4097"), "", 1, {"FILE:7:3: error: model.seq_length: seq_length 4097 is odd", "nearest valid: 4096 or 4098"}},
      {"too_many_faults", C("  faults: [" + [] { std::string f; for (int i = 0; i < 1100; ++i) f += std::string(i ? ", " : "") + "{rank: 0, slowdown: 2}"; return f; }() + "]\n"), "", 1, {"FILE:11:11: error: cluster.faults: the list has 1100 entries; at most 1024 are allowed here"}},
      {"too_many_levels", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  hierarchical_context_parallel_sizes: [1, 1, 1, 1, 1, 1, 1, 1, 8]\n"), "", 1, {"model.hierarchical_context_parallel_sizes: the list has 9 entries; at most 8"}},
      {"hcp_product_overflow", R("  context_parallel_size: 8\n", "  context_parallel_size: 8\n  hierarchical_context_parallel_sizes: [262144, 262144, 262144, 262144, 262144, 262144, 262144, 262144]\n"), "", 1, {"Product of hierarchical_context_parallel_sizes", "must equal context_parallel_size (=8)"}},
      {"task_graph_too_large", Sub(R("context_parallel_size: 8", "context_parallel_size: 65536"), "preset: dgx-h100", "preset: dgx-h100\n  nodes: 8192"), "", 1, {"simulation.layers: the task graph would have about", "more than hcpsim's limit of 6.4e+07"}},
      {"many_errors_capped", "name: x\nmodel:\n" + [] { std::string k; for (int i = 0; i < 300; ++i) k += "  bad_key_" + std::to_string(i) + ": 1\n"; return k; }(), "", 1, {"unknown key 'bad_key_0'", "more diagnostics not shown"}},
      {"leading_comma", "# a comment\n, a2a, p2p]\nname: x\n", "", 1, {"FILE:2:1: error: YAML syntax error: unexpected ','"}},
      {"override_makes_incomplete_gpu", kBase, "cluster.gpu.name=my-gpu", 1, {"cluster.gpu.bf16_tflops: <override 1: 'cluster.gpu.name=my-gpu'> missing 'bf16_tflops'"}},
      {"override_long_value_clipped", kBase, "\"model.attn_mask_type=" + std::string(5000, '[') + "\"", 1, {"<override 1: 'model.attn_mask_type=[[[[", "(5021 characters)'>"}},
      {"calibration_is_a_device", C("  calibration: /dev/zero\n"), "", 1, {"FILE:11:3: error: cluster.calibration: /dev/zero: error: calibration: '/dev/zero' is a character device, not a calibration file"}},
      {"calibration_missing", C("  calibration: no-such-calibration.yaml\n"), "", 1, {"FILE:11:3: error: cluster.calibration:", "cannot open calibration file"}},
      // Found by the fuzzer (seed 3, input 9025): an empty calibration path given as an override made
      // std::filesystem::absolute throw, and the error had no position.
      {"calibration_empty_in_file", C("  calibration: \"\"\n"), "", 1, {"FILE:11:16: error: cluster.calibration: the calibration path is empty"}},
      {"calibration_empty_override", C(""), "'cluster.calibration=\"\"'", 1, {"error: cluster.calibration: <override 1: 'cluster.calibration=\"\"'> the calibration path is empty"}},
      {"dev_zero", none, "!validate /dev/zero", 1, {"/dev/zero: error: '/dev/zero' is a character device, not a scenario file"}},
      {"backend_option_empty", kBase, "!simulate FILE --backend ''", 2, {"--backend: the backend name is empty"}},
      {"simulate_trace_dev_full", kBase, "!simulate FILE --backend analytic --trace /dev/full", 1, {"cannot write /dev/full"}},
      {"simulate_trace_ranks_not_a_range", kBase, "!simulate FILE --backend analytic --trace /dev/null --trace-ranks 0,5-x", 2, {"--trace-ranks: '5-x' is not a non-negative number or a range A-B; expected e.g. 0,5-7"}},
      {"simulate_trace_ranks_beyond_world", kBase, "!simulate FILE --backend analytic --trace /dev/null --trace-ranks 2-8", 2, {"--trace-ranks: 8 is out of range; valid ranks are 0..7"}},
      {"simulate_trace_layers_reversed", kBase, "!simulate FILE --backend analytic --trace /dev/null --trace-layers 1-0", 2, {"--trace-layers: range '1-0' ends before it starts"}},
      {"simulate_trace_ranks_without_trace", kBase, "!simulate FILE --backend analytic --trace-ranks 0", 2, {"--trace-ranks requires --trace"}},
      {"simulate_step_trace_prefill", kBase, "!simulate FILE train.mode=prefill --backend analytic --step-trace /dev/null", 1, {"build_step_graph: the whole-step graph covers training steps only"}},
      {"simulate_step_trace_dev_full", kBase, "!simulate FILE --backend analytic --step-trace /dev/full", 1, {"error: --step-trace: ", "cannot write /dev/full"}},
      {"simulate_trace_gz_unwritable", kBase, "!simulate FILE --backend analytic --trace /no/such/dir/t.json.gz", 1, {"--trace: cannot write /no/such/dir/t.json.gz"}},
      {"graph_layer_out_of_range", kBase, "!graph FILE --layer 9999", 2, {"--layer 9999 is outside 0..0"}},
      {"graph_rank_negative", kBase, "!graph FILE --rank -1", 2, {"'-1' is outside the valid range 0..262143"}},
      {"graph_rank_too_large", kBase, "!graph FILE --rank 8", 2, {"--rank 8 is outside 0..7 (world size 8)"}},
      {"plan_gpus_zero", kBase, "!plan FILE --gpus 0", 2, {"--gpus: '0' is outside the valid range 1..262144"}},
      {"plan_gpus_huge", kBase, "!plan FILE --gpus 1000000000", 2, {"--gpus: '1000000000' is outside the valid range 1..262144"}},
      {"plan_backend_empty", kBase, "!plan FILE --backend ''", 2, {"--backend: the backend name is empty"}},
      {"sweep_out_xml", kBase, "!sweep FILE --vary model.context_parallel_size=4,8 --out x.xml", 2, {"--out x.xml: the file name must end in .csv, .json or .jsonl"}},
      {"sweep_vary_no_equals", kBase, "!sweep FILE --vary model.context_parallel_size", 2, {"--vary 'model.context_parallel_size': expected KEY=V1,V2,..."}},
      {"sweep_vary_empty_value", kBase, "!sweep FILE --vary model.context_parallel_size=4,,8", 2, {"empty value in the list"}},
  };
}

// Short test names in failure messages instead of a byte dump.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class BadInput : public ::testing::TestWithParam<Case> {};

TEST_P(BadInput, ExitCodeAndDiagnostic) {
  const Case& c = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("hcpsim_bad_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / (std::string(c.name) + ".yaml");
  if (c.yaml != "<none>") std::ofstream(file, std::ios::binary) << c.yaml;
  std::string args = c.args;
  if (!args.empty() && args[0] == '!') {
    args = args.substr(1);
    for (auto [from, to] : {std::pair<std::string, std::string>{"FILE", file.string()}, {"DIR", dir.string()}}) {
      if (auto at = args.find(from); at != std::string::npos) args.replace(at, from.size(), "'" + to + "'");
    }
  } else {
    args = "validate '" + file.string() + "' " + args;
  }
  const auto r = test::run_hcpsim(args, (dir / c.name).string());
  fs::remove_all(dir);
  EXPECT_EQ(r.signal, 0) << "crashed with signal " << r.signal;
  EXPECT_EQ(r.exit_code, c.exit_code) << "stderr:\n" << r.err;
  for (std::string e : c.expect) {
    if (auto at = e.find("FILE"); at != std::string::npos) e.replace(at, 4, file.string());
    EXPECT_NE(r.err.find(e), std::string::npos) << "expected in stderr: " << e << "\nstderr:\n" << r.err;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, BadInput, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

TEST(BadInputTable, HasAtLeastFortyCases) { EXPECT_GE(cases().size(), 40u); }

}  // namespace
}  // namespace hcpsim
