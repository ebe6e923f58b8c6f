#include "engine/planning/memory_fit.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "engine/validate/validate.h"
#include "engine/validate/validate_without_placement.h"

namespace hcpsim::planning {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
  return buf;
}

std::string comm_list(const std::vector<CpCommType>& v) {
  if (v.size() == 1) return to_string(v[0]);
  std::string s = "[";
  for (CpCommType c : v) s += std::string(s.size() > 1 ? "," : "") + to_string(c);
  return s + "]";
}

std::string int_list(const std::vector<int>& v) {
  std::string s = "[";
  for (int x : v) s += (s.size() > 1 ? "," : "") + std::to_string(x);
  return s + "]";
}

}  // namespace

std::vector<std::string> changed_overrides(const Scenario& base, const Scenario& c) {
  std::vector<std::string> o;
  auto num = [&](const char* key, long long a, long long b) {
    if (a != b) o.push_back(std::string(key) + "=" + std::to_string(b));
  };
  const ModelConfig& a = base.model;
  const ModelConfig& b = c.model;
  num("model.tensor_model_parallel_size", a.tensor_model_parallel_size, b.tensor_model_parallel_size);
  num("model.context_parallel_size", a.context_parallel_size, b.context_parallel_size);
  num("model.pipeline_model_parallel_size", a.pipeline_model_parallel_size, b.pipeline_model_parallel_size);
  num("model.virtual_pipeline_model_parallel_size", a.virtual_pipeline_model_parallel_size,
      b.virtual_pipeline_model_parallel_size);
  if (b.context_parallel_size > 1 && !c.hyperparallel_cp() && a.cp_comm_type != b.cp_comm_type)
    o.push_back("model.cp_comm_type=" + comm_list(b.cp_comm_type));
  if (a.hierarchical_context_parallel_sizes != b.hierarchical_context_parallel_sizes)
    o.push_back("model.hierarchical_context_parallel_sizes=" +
                (b.hierarchical_context_parallel_sizes.empty() ? std::string("null")
                                                               : int_list(b.hierarchical_context_parallel_sizes)));
  auto flag = [&](const char* key, bool x, bool y) {
    if (x != y) o.push_back(std::string(key) + (y ? "=true" : "=false"));
  };
  flag("model.sequence_parallel", a.sequence_parallel, b.sequence_parallel);
  if (a.overlap_p2p_comm != b.overlap_p2p_comm)
    o.push_back(std::string("model.overlap_p2p_comm=") +
                (b.overlap_p2p_comm ? (*b.overlap_p2p_comm ? "true" : "false") : "null"));
  for (const auto& [key, x, y] : {std::tuple{"model.decoder_first_pipeline_num_layers", a.decoder_first_pipeline_num_layers, b.decoder_first_pipeline_num_layers},
                                  {"model.decoder_last_pipeline_num_layers", a.decoder_last_pipeline_num_layers, b.decoder_last_pipeline_num_layers}})
    if (x != y) o.push_back(std::string(key) + "=" + (y ? std::to_string(*y) : std::string("null")));
  flag("model.account_for_embedding_in_pipeline_split", a.account_for_embedding_in_pipeline_split, b.account_for_embedding_in_pipeline_split);
  flag("model.account_for_loss_in_pipeline_split", a.account_for_loss_in_pipeline_split, b.account_for_loss_in_pipeline_split);
  if (a.recompute_granularity != b.recompute_granularity)
    o.push_back(std::string("model.recompute_granularity=") +
                (b.recompute_granularity == RecomputeGranularity::None ? "null" : to_string(b.recompute_granularity)));
  if (b.recompute_granularity == RecomputeGranularity::Full) {
    if (a.recompute_method != b.recompute_method)
      o.push_back(std::string("model.recompute_method=") + to_string(b.recompute_method));
    num("model.recompute_num_layers", a.recompute_num_layers, b.recompute_num_layers);
  }
  num("train.micro_batch_size", base.train.micro_batch_size, c.train.micro_batch_size);
  if (base.train.global_batch_size != c.train.global_batch_size)
    num("train.global_batch_size", base.train.global_batch_size, c.train.global_batch_size);
  flag("ddp.use_distributed_optimizer", base.ddp.use_distributed_optimizer, c.ddp.use_distributed_optimizer);
  if (base.dist.order != c.dist.order) o.push_back("dist.order=" + c.dist.order);
  const HyperParallelConfig& ha = base.hyperparallel;
  const HyperParallelConfig& hb = c.hyperparallel;
  if (ha.enabled && !hb.enabled) o.push_back("hyperparallel=null");
  if (hb.enabled && (!ha.enabled || ha.style != hb.style || ha.ulysses_degree != hb.ulysses_degree ||
                     ha.load_balance != hb.load_balance)) {
    o.push_back(std::string("hyperparallel.style=") + to_string(hb.style));
    o.push_back("hyperparallel.ulysses_degree=" + (hb.ulysses_degree > 0 ? std::to_string(hb.ulysses_degree) : std::string("null")));
    o.push_back(std::string("hyperparallel.load_balance=") + (hb.load_balance ? "true" : "false"));
  }
  num("cluster.nodes", base.cluster.nodes, c.cluster.nodes);
  num("cluster.gpus_per_node", base.cluster.gpus_per_node, c.cluster.gpus_per_node);
  return o;
}

std::vector<MemoryFix> memory_fixes(const Scenario& s, const MemoryOptions& memory, std::size_t count) {
  std::vector<MemoryFix> fixes;
  const int gpus = s.world_size();
  PlanSearch search;
  search.max_vpp = 1;   // interleaving never lowers the first stage's memory
  std::vector<PlanCandidate> all;
  try {
    all = enumerate_candidates(s, gpus, search, MemoryOptions{});
  } catch (const std::invalid_argument&) {
    return fixes;
  }
  for (const PlanCandidate& c : all) {
    if (c.order != "tp-cp-ep-dp-pp") continue;   // the order does not change memory
    Scenario t = apply_candidate(s, c, gpus);
    MemoryEstimate m;
    try {
      m = estimate_memory(t, memory);
    } catch (const std::invalid_argument&) {
      continue;
    }
    if (!m.fits || validate_without_placement(t).has_errors()) continue;
    fixes.push_back({changed_overrides(s, t), m.total_bytes});
  }
  std::stable_sort(fixes.begin(), fixes.end(), [](const MemoryFix& a, const MemoryFix& b) {
    if (a.overrides.size() != b.overrides.size()) return a.overrides.size() < b.overrides.size();
    return a.total_bytes < b.total_bytes;
  });
  if (fixes.size() > count) fixes.resize(count);
  return fixes;
}

std::vector<std::string> memory_warning(const Scenario& s, const MemoryEstimate& m, const std::vector<MemoryFix>& fixes) {
  std::vector<std::string> lines;
  lines.push_back("does not fit in GPU memory: needs " + gib(m.total_bytes) + " per GPU of " + gib(m.capacity_bytes) +
                  " (" + gib(m.total_bytes - m.capacity_bytes) + " over)");
  if (fixes.empty()) {
    lines.push_back("no layout of the " + std::to_string(s.world_size()) +
                    " GPUs fits (tp, cp, pp, micro-batch, recomputation and optimizer tried): more GPUs are needed "
                    "(`hcpsim plan --min-gpus` finds how many)");
    return lines;
  }
  for (const MemoryFix& f : fixes) {
    std::string l = "fits with";
    for (const std::string& o : f.overrides) l += " " + o;
    lines.push_back(l + " (" + gib(f.total_bytes) + ")");
  }
  return lines;
}

}  // namespace hcpsim::planning
