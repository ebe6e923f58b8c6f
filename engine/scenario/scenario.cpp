#include "engine/scenario/scenario.h"

#include <algorithm>

namespace hcpsim {

const char* to_string(CpCommType t) {
  switch (t) {
    case CpCommType::P2P: return "p2p";
    case CpCommType::AllGather: return "all_gather";
    case CpCommType::A2A: return "a2a";
    case CpCommType::A2AP2P: return "a2a+p2p";
  }
  return "?";
}

const char* to_string(MaskType m) { return m == MaskType::Causal ? "causal" : "no_mask"; }
const char* to_string(DType d) { return d == DType::BF16 ? "bf16" : "fp16"; }
const char* to_string(Topology t) { return t == Topology::FatTree ? "fat-tree" : "star"; }
const char* to_string(AttentionKernel k) {
  switch (k) {
    case AttentionKernel::FA2: return "fa2";
    case AttentionKernel::FA3: return "fa3";
    default: return "cudnn";
  }
}
int bytes_per_element(DType) { return 2; }
const char* to_string(TrainMode m) { return m == TrainMode::Train ? "train" : "prefill"; }
const char* to_string(RecomputeGranularity g) {
  switch (g) {
    case RecomputeGranularity::None: return "none";
    case RecomputeGranularity::Selective: return "selective";
    case RecomputeGranularity::Full: return "full";
  }
  return "?";
}
const char* to_string(RecomputeMethod m) { return m == RecomputeMethod::Uniform ? "uniform" : "block"; }

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

}  // namespace hcpsim
