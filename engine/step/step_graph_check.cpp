#include "engine/step/step_graph_check.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/scenario/pipeline_split.h"
#include "engine/schedule/build.h"
#include "engine/step/fp8_work.h"
#include "engine/step/layer_elementwise.h"
#include "engine/step/step_graph.h"
#include "engine/step/step_model.h"
#include "engine/step/step_work.h"

namespace hcpsim::step {
namespace {

[[noreturn]] void fail(const std::string& m) { throw std::invalid_argument("build_step_graph: " + m); }

}  // namespace

void check_step_graph(const Scenario& s, const RankLayout& layout, std::size_t max_tasks) {
  if (s.train.mode != TrainMode::Train) fail("the whole-step graph covers training steps only (train.mode: train)");
  const int p = s.pp(), v = s.vpp(), m = s.micro_batches(), L = s.model.num_layers;
  if (p < 1 || v < 1 || L < 1) fail("pipeline sizes and num_layers must be >= 1");
  if (m < 1) fail("train.global_batch_size must be a multiple of micro_batch_size x dp");
  if (uneven_pipeline_split(s.model))
    fail("the whole-step graph holds even pipeline splits only (decoder_first/last_pipeline_num_layers, "
         "account_for_embedding/loss_in_pipeline_split are priced by the composed step); use the composed step");
  if (L % (p * v) != 0) fail("model.num_layers (" + std::to_string(L) + ") must divide by pp x vpp");
  if (v > 1 && m % p != 0) fail("the interleaved schedule needs micro-batches divisible by pp");
  if (layout.world_size() != s.world_size() || layout.pp() != p) fail("layout does not match the scenario");
  if (s.ddp.shard_parameters)
    fail("ddp.shard_parameters (per-layer parameter all-gathers) is priced by the composed step only; "
         "use the composed step, or ddp.shard_parameters: false");
  const std::size_t estimate = step_graph_task_estimate(s);
  if (estimate > max_tasks)
    fail("the whole-step graph of this scenario would hold about " + std::to_string(estimate) +
         " tasks, above the limit of " + std::to_string(max_tasks) +
         "; use the composed step, or fewer GPUs, layers or micro-batches");
}

std::size_t step_graph_task_estimate(const Scenario& s) {
  Scenario slice = model_parallel_slice(s);
  slice.model.cp_comm_type = {s.comm_type_for_layer(0)};
  GraphOptions o;
  o.layers = 1;
  o.whole_layer = s.model.ffn_hidden_size > 0;
  const RankLayout layout = RankLayout::from_scenario(slice);
  const TaskGraph g = build_task_graph(slice, layout, o);
  double fwd = 0, bwd = 0;
  for (const Task& t : g.tasks()) (t.pass == Pass::Forward ? fwd : bwd) += 1;
  StepWork ew;
  add_layer_elementwise(s, ew);   // kernels added to every layer pass outside the layer graph
  add_fp8_work(s, ew);
  const double per_rank_fwd = fwd / slice.world_size() + static_cast<double>(ew.layer_elementwise_forward.size());
  const double per_rank_bwd = bwd / slice.world_size() + static_cast<double>(ew.layer_elementwise_backward.size());
  const double layers_per_rank = static_cast<double>(s.model.num_layers) / std::max(1, s.pp());
  const double recompute = s.model.recompute_granularity == RecomputeGranularity::None ? 0.0 : 1.0;
  const double per_rank = std::max(1, s.micro_batches()) *
                          (layers_per_rank * ((1 + recompute) * per_rank_fwd + per_rank_bwd) + 16.0 * s.vpp());
  return static_cast<std::size_t>(per_rank * s.world_size());
}

}  // namespace hcpsim::step
