#include "gui/models/figure_definitions.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace hcpsim::gui {

const std::vector<FigureDefinition>& figure_definitions() {
  static const std::vector<FigureDefinition> table = {
      {"step.time_s", "step time", "s",
       "One whole training step (or the prefill of the global batch): pipeline schedule with its P2P transfers, "
       "exposed data-parallel collectives and the optimizer."},
      {"step.tokens_per_s_per_gpu", "tokens/s per GPU", "tokens/s",
       "Global batch tokens divided by the step time and by the number of GPUs."},
      {"step.mfu", "MFU", "%",
       "Megatron-LM's model FLOPs of the step divided by the step time, the GPUs and the dense bf16 peak."},
      {"step.model_tflops_per_gpu", "model TFLOP/s per GPU", "TFLOP/s",
       "Megatron-LM's model FLOPs of the step divided by the step time and the GPUs."},
      {"error_band", "error band", "s",
       "The step time range the error band gives: measured over predicted step time minus one ranged over "
       "this much in the published holdout cases of the same class (level and precision)."},
      {"step.pipeline_bubble_fraction", "pipeline bubble", "%",
       "Share of the pipeline time the busiest stage does not compute."},
      {"memory.peak_bytes_per_gpu", "memory per GPU", "GiB",
       "Peak memory the memory model estimates for one GPU: weights, gradients, optimizer states, activations, "
       "logits, CP buffers and reserved memory."},
      {"memory.headroom_bytes", "memory headroom", "GiB",
       "GPU capacity minus the peak memory per GPU; negative when the job does not fit."},
      {"exposed.layer_s", "exposed TP/CP communication", "s",
       "Communication inside one layer (forward plus backward, one micro-batch) not hidden behind compute, "
       "slowest rank."},
      {"exposed.dp_s", "exposed DP communication", "s",
       "The part of the data-parallel gradient reduce-scatter and parameter all-gather not hidden behind "
       "compute, once per step."},
      {"exposed.p2p_s", "pipeline P2P transfer", "s",
       "One activation transfer to the next stage plus one gradient transfer back, one micro-batch."},
      {"exposed.fsdp_s", "exposed FSDP communication", "s",
       "Parameter all-gathers and gradient reduce-scatters of full sharding not hidden behind compute, one "
       "micro-batch on the busiest stage."},
      {"layer.attention_s", "attention per layer", "s",
       "CP attention forward plus backward of one layer, one micro-batch, slowest rank."},
  };
  return table;
}

const FigureDefinition& figure(const char* key) {
  for (const auto& f : figure_definitions())
    if (std::strcmp(f.key, key) == 0) return f;
  throw std::out_of_range(std::string("figure '") + key + "' is not in the definitions table");
}

QString figure_tooltip(const char* key) {
  const FigureDefinition& f = figure(key);
  return QStringLiteral("%1 (%2): %3").arg(QString::fromUtf8(f.label), QString::fromUtf8(f.unit), QString::fromUtf8(f.definition));
}

}  // namespace hcpsim::gui
