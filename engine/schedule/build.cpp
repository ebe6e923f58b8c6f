// build_task_graph: per layer (its own cp_comm_type), forward of layers 0..L-1 in order, then
// backward of layers L-1..0; each layer's builders come from its schedule's descriptor. Layers chain through stream
// order: the first task of a layer on a rank follows that rank's last main-stream task.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/schedule/a2a_p2p.h"
#include "engine/schedule/build.h"
#include "engine/schedule/hp_context_parallel.h"
#include "engine/schedule/hp_dsa.h"
#include "engine/schedule/layer_ops.h"
#include "engine/schedule/schedule_context.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim {

GraphOptions graph_options_from(const Scenario& s) {
  GraphOptions o;
  o.forward = s.simulation.forward;
  o.backward = s.simulation.backward && s.train.mode == TrainMode::Train;   // prefill: forward only
  o.layers = s.simulation.layers;
  // A per-layer list: simulate at least up to the first layer of every distinct comm type.
  for (std::size_t i = 0; !s.hyperparallel_cp() && i < s.model.cp_comm_type.size(); ++i)
    if (std::find(s.model.cp_comm_type.begin(), s.model.cp_comm_type.begin() + i, s.model.cp_comm_type[i]) ==
        s.model.cp_comm_type.begin() + i)
      o.layers = std::max(o.layers, static_cast<int>(i) + 1);
  o.whole_layer = s.model.ffn_hidden_size > 0;
  return o;
}

namespace {

void check_inputs(const Scenario& s, const RankLayout& layout, const GraphOptions& o) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("build_task_graph: " + m); };
  if (o.layers < 1) fail("simulation.layers must be >= 1 (got " + std::to_string(o.layers) + ")");
  if (!o.forward && !o.backward) fail("at least one of simulation.forward / simulation.backward must be true");
  if (o.with_payloads && o.backward && !o.forward)
    fail("payloads for the backward pass need the forward pass too (the backward reads saved tensors)");
  if (s.cp() < 1) fail("model.context_parallel_size must be >= 1");
  if (layout.world_size() != s.world_size() || layout.cp() != s.cp() || layout.tp() != s.tp())
    fail("layout does not match the scenario (world/tp/cp)");
  // Megatron's dual-chunk layout needs 2*cp chunks; HyperParallel shards contiguously (cp slices,
  // halved again by load_balance).
  const bool hp = s.hyperparallel_cp();
  // DistFlashAttn: one chunk per CP rank.
  const long long chunks = (hp && !s.hyperparallel.load_balance) || s.distflashattn_cp() ? s.cp() : 2LL * s.cp();
  if (s.model.seq_length <= 0 || s.model.seq_length % chunks != 0)
    fail("model.seq_length (" + std::to_string(s.model.seq_length) + ") must be a positive multiple of " +
         (chunks == s.cp() ? "cp = " : "2*cp = ") + std::to_string(chunks));
  if (hp && s.cp() > 1 && !layout.hyperparallel())
    fail("the layout does not carry HyperParallel's sub-groups (hp_ulysses, hp_colossal)");
  if (s.heads_per_tp_rank() < 1 || s.kv_heads_per_tp_rank() < 1 || s.head_dim() < 1)
    fail("model needs num_attention_heads >= tp, num_query_groups >= 1 and a head dim >= 1");
  if (s.train.micro_batch_size < 1) fail("train.micro_batch_size must be >= 1");
}

// HyperParallel's styles (`hyperparallel:` section); `projections`: AsyncContextParallel adds its own
// Q/K/V projection GEMMs in whole-layer forward.
void build_hyperparallel(schedule::ScheduleContext& ctx, bool projections) {
  const auto& hp = ctx.scenario.hyperparallel;
  const bool fwd = ctx.pass == Pass::Forward;
  if (hp.dsa()) {
    fwd ? schedule::build_hp_dsa_forward(ctx, projections) : schedule::build_hp_dsa_backward(ctx);
  } else if (hp.load_balance) {
    fwd ? schedule::build_hp_load_balance_forward(ctx) : schedule::build_hp_load_balance_backward(ctx);
  } else {
    fwd ? schedule::build_hp_forward(ctx, projections) : schedule::build_hp_backward(ctx);
  }
}

void build_attention(schedule::ScheduleContext& ctx, const schedule::ScheduleDescriptor& d) {
  const bool fwd = ctx.pass == Pass::Forward;
  if (ctx.options.silent_disable_pitfall || ctx.layout.cp() == 1) {
    fwd ? schedule::build_local_forward(ctx) : schedule::build_local_backward(ctx);
    return;
  }
  if (ctx.scenario.hyperparallel_cp()) {
    build_hyperparallel(ctx, false);
    return;
  }
  fwd ? d.build_forward(ctx) : d.build_backward(ctx);
}

void build_layer_pass(schedule::ScheduleContext& ctx, const Scenario& s, int layer, Pass pass) {
  ctx.layer = layer;
  ctx.pass = pass;
  const int W = ctx.layout.world_size();
  auto hook = [&](LayerPart part) {
    std::vector<TaskId> frontier(static_cast<std::size_t>(W));
    // Stream waits pending on the main stream (the cp stream joining main at the end of attention)
    // bind the first whole-layer op of each rank, as the next main-stream kernel would.
    std::vector<std::vector<TaskId>> waits(static_cast<std::size_t>(W));
    for (int r = 0; r < W; ++r) {
      frontier[static_cast<std::size_t>(r)] = ctx.last(r, Stream::Main);
      waits[static_cast<std::size_t>(r)] = ctx.take_waits(r, Stream::Main);
    }
    const auto next = add_layer_ops(ctx.g, s, ctx.layout, layer, pass, part, frontier, waits);
    for (int r = 0; r < W && static_cast<std::size_t>(r) < next.size(); ++r) {
      const auto i = static_cast<std::size_t>(r);
      if (next[i] != kNone) ctx.set_last(r, Stream::Main, next[i]);
      if (next[i] == frontier[i])   // no op added for this rank: the waits stay pending
        for (TaskId w : waits[i]) ctx.wait(r, Stream::Main, w);
    }
  };
  // AsyncContextParallel (not with load_balance, which falls back to the synchronous style) hooks
  // the three projections: its forward builds them itself, with the collectives started in between.
  const bool hp_projections = (ctx.options.whole_layer || ctx.options.hp_projections) && pass == Pass::Forward &&
                              s.hyperparallel_cp() &&
                              s.hyperparallel.async_effective() && s.cp() > 1 && !ctx.options.silent_disable_pitfall;
  if (hp_projections) {
    build_hyperparallel(ctx, true);
    if (ctx.options.whole_layer) hook(LayerPart::AfterAttention);
    return;
  }
  if (ctx.options.whole_layer) hook(LayerPart::BeforeAttention);
  if (ctx.options.attention) build_attention(ctx, schedule::schedule_of_layer(s, layer));
  if (ctx.options.whole_layer) hook(LayerPart::AfterAttention);
}

}  // namespace

std::size_t expected_task_count(const Scenario& s, const RankLayout& layout, const GraphOptions& options) {
  if (options.whole_layer || !options.attention || options.silent_disable_pitfall || s.hyperparallel_cp() ||
      layout.cp() < 2 || options.layers < 1)
    return 0;
  std::size_t per_rank = 0;
  for (const Pass pass : {Pass::Forward, Pass::Backward}) {
    if (!(pass == Pass::Forward ? options.forward : options.backward)) continue;
    for (int layer = 0; layer < options.layers; ++layer) {
      const auto tasks_per_rank = schedule::schedule_of_layer(s, layer).tasks_per_rank;
      const std::size_t k = tasks_per_rank ? tasks_per_rank(layout, pass) : 0;
      if (k == 0) return 0;
      per_rank += k;
    }
  }
  return per_rank * static_cast<std::size_t>(layout.world_size());
}

TaskGraph build_task_graph(const Scenario& s, const RankLayout& layout, const GraphOptions& options) {
  check_inputs(s, layout, options);
  TaskGraph g;
  g.world_size = layout.world_size();
  g.layers = options.layers;
  g.scenario_name = s.name;
  schedule::ScheduleContext ctx(g, s, layout, options);
  // About two dependencies a task; a little more is reserved than used, rather than a doubling.
  if (const std::size_t tasks = expected_task_count(s, layout, options)) g.reserve(tasks, tasks * 5 / 2);
  // Layers of one pass are usually alike: once the first is built, reserve room for the rest so
  // that million-task graphs are not copied while they grow.
  auto build_pass = [&](Pass pass) {
    for (int i = 0; i < options.layers; ++i) {
      const std::size_t tasks0 = g.size(), edges0 = g.edges_added();
      build_layer_pass(ctx, s, pass == Pass::Forward ? i : options.layers - 1 - i, pass);
      if (i == 0 && options.layers > 1) {
        const auto rest = static_cast<std::size_t>(options.layers - 1);
        g.reserve(g.size() + (g.size() - tasks0) * rest, g.edges_added() + (g.edges_added() - edges0) * rest);
      }
    }
  };
  if (options.forward) build_pass(Pass::Forward);
  if (options.backward) build_pass(Pass::Backward);
  return g;
}

}  // namespace hcpsim
