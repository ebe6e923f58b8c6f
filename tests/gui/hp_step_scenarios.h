#pragma once
// The HyperParallel example scenarios of scenarios/hp-*.yaml on one DGX H100 (cp = 8), one per mode,
// shared by the step-model and step-view tests.
#include <string>
#include <vector>

#include "engine/scenario/loader.h"

namespace hcpsim::gui::test {

struct HpCase {
  std::string name;
  std::string file;                     // under scenarios/
  std::vector<std::string> overrides;
};

inline std::vector<HpCase> hp_cases() {
  const std::vector<std::string> one_node{"cluster.nodes=1", "model.context_parallel_size=8", "hyperparallel.mesh_dim_names=[]"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> o = one_node;
    o.insert(o.end(), extra.begin(), extra.end());
    return o;
  };
  const std::string hybrid = "hp-llama3-8b-128k-dgx-h100-hybrid.yaml";
  return {
      {"ulysses", hybrid, with({"hyperparallel.ulysses_degree=null"})},
      {"colossal", hybrid, with({"hyperparallel.ulysses_degree=1"})},
      {"hybrid", hybrid, with({"hyperparallel.ulysses_degree=2"})},
      {"load_balance", "hp-llama3-8b-128k-dgx-h100-colossal-lb.yaml", with({})},
      {"async", "hp-llama3-8b-128k-dgx-h100-async-ulysses.yaml", with({})},
      {"dsa", hybrid,
       with({"hyperparallel.style=DSA", "hyperparallel.ulysses_degree=1", "model.dsa.index_topk=2048",
             "model.dsa.index_n_heads=64", "model.dsa.index_head_dim=128"})},
      {"async_dsa", hybrid,
       with({"hyperparallel.style=AsyncDSA", "hyperparallel.ulysses_degree=1", "model.dsa.index_topk=2048",
             "model.dsa.index_n_heads=64", "model.dsa.index_head_dim=128"})},
  };
}

inline Scenario load_hp_case(const HpCase& c) {
  LoadOptions o;
  o.overrides = c.overrides;
  return load_scenario_file(std::string(HCPSIM_SOURCE_DIR) + "/scenarios/" + c.file, o);
}

inline HpCase hp_case(const std::string& name) {
  for (const HpCase& c : hp_cases())
    if (c.name == name) return c;
  return {};
}

}  // namespace hcpsim::gui::test
