// kind: kernel — one attention kernel on one GPU, predicted by the engine's own cp=1 schedule.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "engine/accuracy/case_loader.h"
#include "engine/accuracy/case_prediction.h"
#include "engine/core/diagnostics.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/schema.h"
#include "engine/schedule/build.h"
#include "engine/schedule/schedule_context.h"
#include "engine/validate/validate.h"

namespace hcpsim::accuracy {

namespace {

// A node of the case document when present (it keeps its mark), else a fresh value.
template <typename T>
YAML::Node from_case(const YAML::Node& n, const T& fallback) {
  return n.IsDefined() && !n.IsNull() ? n : YAML::Node(fallback);
}

// The engine's builders need an even sequence (2 chunks per CP rank); the built task is re-shaped
// to the case's exact lengths afterwards.
std::int64_t built_seq(std::int64_t seq_q) { return seq_q % 2 == 0 ? seq_q : seq_q + 1; }

// The scenario field that selects the attention kernel family of the cost model's efficiency tables.
// Until a build's scenario format has it, `family` is checked and reported but cannot reach the
// cost model (docs/accuracy.md).
constexpr const char* kKernelFamilyField = "cluster.efficiency.attention_kernel";

}  // namespace

Scenario kernel_scenario(const AccuracyCase& c, const PredictOptions& options) {
  const auto& k = c.kernel;
  const YAML::Node doc = case_document(c);
  const YAML::Node kn = doc["kernel"];
  YAML::Node root(YAML::NodeType::Map);
  root["name"] = c.name;
  YAML::Node model(YAML::NodeType::Map);
  model["num_layers"] = 1;
  model["hidden_size"] = k.heads * k.head_dim;
  model["num_attention_heads"] = from_case(kn["heads"], k.heads);
  model["num_query_groups"] = from_case(kn["kv_heads"], k.kv_heads);
  model["kv_channels"] = from_case(kn["head_dim"], k.head_dim);
  model["seq_length"] = built_seq(k.seq_q);
  model["attn_mask_type"] = k.causal ? "causal" : "no_mask";
  model["tensor_model_parallel_size"] = 1;
  model["context_parallel_size"] = 1;
  root["model"] = model;
  YAML::Node train(YAML::NodeType::Map);
  train["micro_batch_size"] = from_case(kn["batch"], k.batch);
  root["train"] = train;
  YAML::Node cluster(YAML::NodeType::Map);
  cluster["nodes"] = 1;
  cluster["gpus_per_node"] = 1;
  cluster["gpu"] = from_case(doc["gpu"], k.gpu);
  if (k.family != "other" && schema::is_known_path(kKernelFamilyField)) {
    YAML::Node efficiency(YAML::NodeType::Map);
    efficiency["attention_kernel"] = k.family;
    cluster["efficiency"] = efficiency;
  }
  root["cluster"] = cluster;
  YAML::Node sim(YAML::NodeType::Map);
  sim["backend"] = c.backend;
  YAML::Node passes(YAML::NodeType::Sequence);
  if (k.pass != KernelPass::Backward) passes.push_back("forward");
  if (k.pass != KernelPass::Forward) passes.push_back("backward");
  sim["passes"] = passes;
  sim["layers"] = 1;
  root["simulation"] = sim;

  return load_assembled_scenario(c, root, options, "gpu", "kernel", "the kernel's one-GPU scenario");
}

TaskGraph kernel_graph(const AccuracyCase& c, const Scenario& s) {
  const auto& k = c.kernel;
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph built = build_task_graph(s, layout, graph_options_from(s));
  const std::size_t expected = k.pass == KernelPass::ForwardBackward ? 2 : 1;
  bool same_shape = built.size() == expected;
  for (const Task& t : built.tasks()) {
    if (t.attention == kNone)
      throw std::logic_error("kernel case " + c.name + ": the cp=1 schedule built a task that is not attention");
    const AttentionShape& a = built.attention_of(t);
    same_shape = same_shape && a.q_len == k.seq_q && a.kv_len == k.seq_kv;
  }
  if (built.size() != expected)
    throw std::logic_error("kernel case " + c.name + ": the cp=1 schedule built " + std::to_string(built.size()) +
                           " tasks, expected " + std::to_string(expected));
  if (same_shape) return built;

  // Re-shape to the case's lengths: same kernels, FLOPs in proportion to the (q,k) pairs (the
  // builders' count is linear in them), HBM bytes by the shared attention_hbm_bytes(); the
  // dependencies (stream order) stay as built.
  TaskGraph g;
  g.world_size = built.world_size;
  g.layers = built.layers;
  g.scenario_name = built.scenario_name;
  const schedule::Sizes z = schedule::sizes_of(s);
  for (TaskId id = 0; id < built.size(); ++id) {
    const Task& t0 = built.task(id);
    const AttentionShape& a0 = built.attention_of(t0);
    AttentionShape a = a0;
    a.q_len = k.seq_q;
    a.kv_len = k.seq_kv;
    a.section = k.causal ? MaskSection::BottomRight : MaskSection::Full;
    a.pairs = attention_pairs(a.section, a.q_len, a.kv_len);
    Task t = t0;
    t.flops = t0.flops * a.pairs / a0.pairs;
    t.bytes = schedule::attention_hbm_bytes(z, t0.pass, a.q_len, a.kv_len, a.heads, a.kv_heads);
    t.attention = g.add_attention(a);
    const TaskId nid = g.add_task(t, built.label(t0));
    for (TaskId dep : built.deps(id)) g.add_dep(dep, nid);
  }
  return g;
}

double kernel_reported_flops(const AccuracyCase& c, const TaskGraph& g) {
  const auto& k = c.kernel;
  if (k.flops_convention == "exact") {
    double f = 0;
    for (const Task& t : g.tasks()) f += t.flops;
    return f;
  }
  // The FlashAttention papers: forward 4 * batch * heads * seq_q * seq_kv * head_dim, halved when
  // causal; backward 2.5 times the forward count; forward + backward 3.5 times.
  double f = 4.0 * k.batch * k.heads * static_cast<double>(k.seq_q) * static_cast<double>(k.seq_kv) * k.head_dim;
  if (k.causal) f /= 2;
  if (k.pass == KernelPass::Backward) f *= 2.5;
  if (k.pass == KernelPass::ForwardBackward) f *= 3.5;
  return f;
}

}  // namespace hcpsim::accuracy
