#pragma once
// A planned layout in the forms a team runs it: scenario overrides, a ready scenario file (the base
// file with the overrides applied), Megatron-LM pretrain_gpt.py arguments and Megatron-Bridge
// overrides. `hcpsim plan --emit DIR` and the JSON rows of plan and sweep use these.
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

// Megatron-LM arguments of a scenario: the model, the batch and every parallel setting hcpsim
// models ("--tensor-model-parallel-size", "2", ...). `hcpsim import megatron` reads them back.
std::vector<std::string> megatron_arguments(const Scenario& s);

// Megatron-Bridge ConfigContainer overrides (key=value) of the parallel layout, batch, recomputation
// and optimizer settings: hcpsim's model/train/ddp keys are Bridge's, so these are the scenario
// overrides without the cluster and the keys and values Bridge does not have (hcpsim's own
// recomputation modes selective_op and non_attention, ddp.shard_parameters; emit_warnings names them).
std::vector<std::string> bridge_overrides(const std::vector<std::string>& scenario_overrides);

// One sentence for every setting of `s` that the Megatron-LM arguments or the Bridge overrides above
// cannot express, naming the scenario field and what the emitted forms do instead (op-level or
// non-attention recomputation, a HyperParallel CP mode, parameter sharding, gradients reduced in the
// parameters' dtype, another rank order). Empty when both forms say everything.
std::vector<std::string> emit_warnings(const Scenario& s);

// The base scenario file's YAML with `overrides` applied and `name` / `description` set. Throws
// std::runtime_error when the file cannot be read or an override does not apply.
std::string scenario_file_text(const std::string& base_path, const std::vector<std::string>& overrides,
                               const std::string& name, const std::string& description);

// Shell-quoted, space-separated.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace hcpsim::planning
