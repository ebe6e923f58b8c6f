#pragma once
// How Megatron-Core divides num_layers over the pipeline stages and their model chunks, with its
// checks (megatron/core/transformer/transformer_block.py get_num_layers_to_build and
// transformer_config.py; docs/scenario.md "Uneven pipeline split"):
//   - even (none of the four fields set): every chunk holds num_layers / (pp x vpp) layers;
//   - decoder_first/last_pipeline_num_layers: the first (last) stage holds that many layers, the
//     other stages share the rest evenly; each stage's layers are divided evenly over its vpp chunks;
//   - account_for_embedding/loss_in_pipeline_split: num_layers + 1 (+ 1) is split evenly, and the
//     first (last) model chunk builds one transformer layer fewer, the embedding (loss) taking its place.
#include <optional>
#include <string>
#include <vector>

namespace hcpsim {

struct ModelConfig;

struct PipelineSplitProblem {
  std::string field;                 // "model.decoder_first_pipeline_num_layers", ...
  std::string message;
  std::vector<std::string> hints;    // what would be valid
};

// True when any of the four uneven-split fields is set.
bool uneven_pipeline_split(const ModelConfig& m);

// The first of Megatron's rules the split breaks, or nothing when it is valid.
std::optional<PipelineSplitProblem> pipeline_split_problem(const ModelConfig& m);

// Transformer layers of each model chunk: layers[stage][chunk] (pp x vpp). Throws
// std::invalid_argument with the problem's field and message when the split is not valid.
std::vector<std::vector<int>> pipeline_split(const ModelConfig& m);

// Transformer layers of each stage (the sum over its chunks).
std::vector<int> stage_layer_counts(const ModelConfig& m);

// "15/16x6/15" (first, middle stages x count, last), or "16x8" for an even split.
std::string pipeline_split_label(const ModelConfig& m);

}  // namespace hcpsim
