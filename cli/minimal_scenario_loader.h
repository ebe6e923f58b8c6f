#pragma once
// TEMPORARY (engine helper): a minimal YAML scenario reader for `hcpsim graph` and `hcpsim verify`
// until the foundation's loader (engine/scenario/loader.h + cli/scenario_args.h) is in main.
// Reads only the fields these commands need; unknown keys are ignored here (the real loader
// rejects them). Overrides "a.b=value" are applied to the YAML tree before reading.
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim::cli {

inline CpCommType parse_comm_type_min(const std::string& v) {
  if (v == "p2p") return CpCommType::P2P;
  if (v == "a2a") return CpCommType::A2A;
  if (v == "all_gather" || v == "allgather") return CpCommType::AllGather;
  if (v == "a2a+p2p") return CpCommType::A2AP2P;
  throw std::invalid_argument("model.cp_comm_type: '" + v + "' is not one of p2p, all_gather, a2a, a2a+p2p");
}

inline Scenario load_scenario_minimal(const std::string& path, const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  for (const std::string& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("override '" + o + "' is not of the form key.path=value");
    const std::string key = o.substr(0, eq);
    std::vector<std::string> parts;
    for (std::size_t b = 0, e; b <= key.size(); b = e + 1) {
      e = key.find('.', b);
      if (e == std::string::npos) e = key.size();
      parts.push_back(key.substr(b, e - b));
    }
    std::vector<YAML::Node> chain{root};
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) chain.push_back(chain.back()[parts[i]]);
    chain.back()[parts.back()] = YAML::Load(o.substr(eq + 1));
  }
  Scenario s;
  s.source_path = path;
  auto get = [&](const YAML::Node& n, const char* sec, const char* key, auto fallback) {
    using T = decltype(fallback);
    const YAML::Node v = n[key];
    if (!v) return fallback;
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      throw std::invalid_argument(path + ": " + sec + "." + key + ": cannot read '" + YAML::Dump(v) + "'");
    }
  };
  s.name = root["name"] ? root["name"].as<std::string>() : std::string("scenario");
  const YAML::Node m = root["model"];
  if (!m) throw std::invalid_argument(path + ": missing section 'model'");
  auto& M = s.model;
  M.num_layers = get(m, "model", "num_layers", 1);
  M.hidden_size = get(m, "model", "hidden_size", 0);
  M.ffn_hidden_size = get(m, "model", "ffn_hidden_size", 0);
  M.num_attention_heads = get(m, "model", "num_attention_heads", 0);
  M.num_query_groups = get(m, "model", "num_query_groups", M.num_attention_heads);
  M.kv_channels = get(m, "model", "kv_channels", 0);
  M.seq_length = get(m, "model", "seq_length", std::int64_t{0});
  const std::string mask = get(m, "model", "attn_mask_type", std::string("causal"));
  if (mask != "causal" && mask != "no_mask")
    throw std::invalid_argument(path + ": model.attn_mask_type: '" + mask + "' is not one of causal, no_mask");
  M.attn_mask_type = mask == "causal" ? MaskType::Causal : MaskType::NoMask;
  M.tensor_model_parallel_size = get(m, "model", "tensor_model_parallel_size", 1);
  M.pipeline_model_parallel_size = get(m, "model", "pipeline_model_parallel_size", 1);
  M.context_parallel_size = get(m, "model", "context_parallel_size", 1);
  if (const YAML::Node c = m["cp_comm_type"]) {
    M.cp_comm_type.clear();
    if (c.IsSequence())
      for (const auto& e : c) M.cp_comm_type.push_back(parse_comm_type_min(e.as<std::string>()));
    else
      M.cp_comm_type.push_back(parse_comm_type_min(c.as<std::string>()));
  }
  if (const YAML::Node h = m["hierarchical_context_parallel_sizes"]; h && !h.IsNull())
    M.hierarchical_context_parallel_sizes = h.as<std::vector<int>>();
  if (const YAML::Node t = root["train"]) s.train.micro_batch_size = get(t, "train", "micro_batch_size", 1);
  if (const YAML::Node d = root["dist"]) s.dist.order = get(d, "dist", "order", s.dist.order);
  if (const YAML::Node c = root["cluster"]) {
    s.cluster.nodes = get(c, "cluster", "nodes", 1);
    s.cluster.gpus_per_node = get(c, "cluster", "gpus_per_node", 8);
  }
  if (const YAML::Node sim = root["simulation"]) {
    s.simulation.layers = get(sim, "simulation", "layers", 1);
    if (const YAML::Node p = sim["passes"]) {
      s.simulation.forward = s.simulation.backward = false;
      for (const auto& e : p) {
        const std::string v = e.as<std::string>();
        if (v == "forward") s.simulation.forward = true;
        else if (v == "backward") s.simulation.backward = true;
        else throw std::invalid_argument(path + ": simulation.passes: '" + v + "' is not forward or backward");
      }
    }
  }
  return s;
}

}  // namespace hcpsim::cli
