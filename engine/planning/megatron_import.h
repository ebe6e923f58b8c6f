#pragma once
// `hcpsim import megatron`: a Megatron-LM pretrain_gpt.py command line as a scenario. Every argument
// hcpsim models is mapped to its scenario key; every other argument is named in a warning (never an
// error). Megatron's defaults apply where an argument is absent (no distributed optimizer, tied
// embeddings, no gradient/parameter overlap).
#include <string>
#include <vector>

namespace hcpsim::planning {

// Where the job runs: Megatron's arguments do not say.
struct ImportCluster {
  std::string preset = "dgx-h100";   // cluster.preset
  int nodes = 0;                     // cluster.nodes; required
  int gpus_per_node = 0;             // 0 = the preset's
  std::string name = "imported";     // the scenario's name
};

struct MegatronImport {
  std::string yaml;                    // the scenario
  std::vector<std::string> warnings;   // "--lr 3e-4: ignored (not modelled by hcpsim)", ...
};

// Throws std::invalid_argument naming the argument for a missing value, a value that is not a number
// where one is needed, or a required argument that is absent (--num-layers, --hidden-size,
// --num-attention-heads, --seq-length).
MegatronImport import_megatron(const std::vector<std::string>& args, const ImportCluster& cluster);

}  // namespace hcpsim::planning
