#include "engine/scenario/scenario.h"

#include <algorithm>

#include "engine/core/enum_names.h"
#include "engine/scenario/convert.h"
#include "engine/scenario/pipeline_split.h"

namespace hcpsim {

namespace {

constexpr auto kCommTypeNames = std::to_array<EnumName<CpCommType>>({{CpCommType::P2P, "p2p"},
                                                                     {CpCommType::AllGather, "all_gather"},
                                                                     {CpCommType::A2A, "a2a"},
                                                                     {CpCommType::A2AP2P, "a2a+p2p"},
                                                                     {CpCommType::DistFlashAttn, "dfa"}});
constexpr auto kKernelNames = std::to_array<EnumName<AttentionKernel>>(
    {{AttentionKernel::CuDNN, "cudnn"}, {AttentionKernel::FA2, "fa2"}, {AttentionKernel::FA3, "fa3"}});
constexpr auto kGranularityNames = std::to_array<EnumName<RecomputeGranularity>>(
    {{RecomputeGranularity::None, "none"}, {RecomputeGranularity::Selective, "selective"},
     {RecomputeGranularity::Full, "full"}, {RecomputeGranularity::NonAttention, "non_attention"},
     {RecomputeGranularity::SelectiveOp, "selective_op"}});
constexpr auto kElementwiseNames = std::to_array<EnumName<ElementwiseOps>>(
    {{ElementwiseOps::None, "none"}, {ElementwiseOps::Fused, "fused"}, {ElementwiseOps::Unfused, "unfused"}});

}  // namespace

const char* to_string(CpCommType t) { return name_of(kCommTypeNames, t); }
std::optional<CpCommType> detail::comm_type_named(std::string_view name) { return find_value(kCommTypeNames, name); }
const char* to_string(MaskType m) { return m == MaskType::Causal ? "causal" : "no_mask"; }
const char* to_string(DType d) { return d == DType::BF16 ? "bf16" : "fp16"; }
const char* to_string(Topology t) { return t == Topology::FatTree ? "fat-tree" : "star"; }
const char* to_string(AttentionKernel k) { return name_of(kKernelNames, k); }
int bytes_per_element(DType) { return 2; }
const char* to_string(TrainMode m) { return m == TrainMode::Train ? "train" : "prefill"; }
const char* to_string(RecomputeGranularity g) { return name_of(kGranularityNames, g); }
const char* to_string(RecomputeMethod m) { return m == RecomputeMethod::Uniform ? "uniform" : "block"; }
const char* to_string(ElementwiseOps e) { return name_of(kElementwiseNames, e); }

int Scenario::global_batch() const {
  if (train.global_batch_size > 0) return train.global_batch_size;
  return train.micro_batch_size * std::max(1, dp());
}

int Scenario::micro_batches() const {
  const long long per = static_cast<long long>(train.micro_batch_size) * dp();
  if (per <= 0 || global_batch() % per != 0) return 0;
  return static_cast<int>(global_batch() / per);
}

int Scenario::dp() const {
  const long long denom = static_cast<long long>(tp()) * cp() * pp();
  if (denom <= 0 || world_size() % denom != 0) return 0;
  return static_cast<int>(world_size() / denom);
}

CpCommType Scenario::comm_type_for_layer(int layer) const {
  if (model.cp_comm_type.empty()) return CpCommType::P2P;
  if (model.cp_comm_type.size() == 1) return model.cp_comm_type.front();
  return model.cp_comm_type.at(static_cast<std::size_t>(layer) % model.cp_comm_type.size());
}

bool Scenario::distflashattn_cp() const {
  return !hyperparallel_cp() && std::find(model.cp_comm_type.begin(), model.cp_comm_type.end(),
                                          CpCommType::DistFlashAttn) != model.cp_comm_type.end();
}

int Scenario::heads_per_tp_rank() const { return model.num_attention_heads / tp(); }

int Scenario::kv_heads_per_tp_rank() const {
  const int g = model.num_query_groups > 0 ? model.num_query_groups : model.num_attention_heads;
  return g >= tp() ? g / tp() : 1;
}

int Scenario::head_dim() const {
  if (model.kv_channels > 0) return model.kv_channels;
  return model.num_attention_heads > 0 ? model.hidden_size / model.num_attention_heads : 0;
}

SourceLocation Scenario::location_of(const std::string& path) const {
  // Walk up the dotted path until a recorded position is found (a missing leaf points at its parent).
  std::string p = path;
  while (!p.empty()) {
    auto it = locations.find(p);
    if (it != locations.end()) return it->second;
    const auto dot = p.find_last_of(".[");
    if (dot == std::string::npos) break;
    p.resize(dot);
  }
  return {};
}

std::string Scenario::display_name() const {
  if (overrides.empty()) return name;
  std::string out = name + " (with";
  for (const auto& o : overrides) out += " " + o;
  return out + ")";
}

std::string Scenario::configuration() const {
  // One comm type, or a per-layer list as its kinds with their layer counts, in first-seen order.
  std::string comm;
  if (model.cp_comm_type.size() == 1) comm = to_string(model.cp_comm_type[0]);
  std::vector<std::pair<CpCommType, int>> kinds;
  for (std::size_t i = 0; model.cp_comm_type.size() > 1 && i < model.cp_comm_type.size(); ++i) {
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == model.cp_comm_type[i]; });
    if (it == kinds.end()) kinds.emplace_back(model.cp_comm_type[i], 1);
    else ++it->second;
  }
  for (std::size_t i = 0; i < kinds.size(); ++i)
    comm += (i ? ", " : "per-layer ") + std::string(to_string(kinds[i].first)) + " x" + std::to_string(kinds[i].second);
  if (hyperparallel.enabled) {   // HyperParallel's style and mode replace cp_comm_type
    const auto& h = hyperparallel;
    comm = std::string("hyperparallel ") + to_string(h.style) + " " + to_string(h.mode(cp())) + " u=" +
           std::to_string(h.ulysses(cp())) + (h.load_balance ? " load_balance" : "");
  }
  std::string hcp;
  if (!hyperparallel.enabled && !model.hierarchical_context_parallel_sizes.empty()) {
    hcp = " [";
    for (std::size_t i = 0; i < model.hierarchical_context_parallel_sizes.size(); ++i)
      hcp += (i ? "," : "") + std::to_string(model.hierarchical_context_parallel_sizes[i]);
    hcp += "]";
  }
  return "seq_length " + std::to_string(model.seq_length) + ", micro_batch " + std::to_string(train.micro_batch_size) +
         ", tp " + std::to_string(tp()) + ", cp " + std::to_string(cp()) + " " + comm + hcp + ", pp " +
         std::to_string(pp()) + (uneven_pipeline_split(model) && !pipeline_split_problem(model) ? " split " + pipeline_split_label(model) : "") + ", dp " + std::to_string(dp()) + ", " + std::to_string(cluster.nodes) + " x " +
         std::to_string(cluster.gpus_per_node) + " " + cluster.gpu.name + ", backend " + simulation.backend;
}

}  // namespace hcpsim
