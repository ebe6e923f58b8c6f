#pragma once
// Helpers shared by the scenario tests: a small valid scenario and loaders that capture diagnostics.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::test {

// Llama-3-8B-like, tp=1 cp=8 p2p on one DGX H100. Line numbers below are relied on by tests.
inline const char* kBase =
    "name: base\n"                         // 1
    "model:\n"                             // 2
    "  num_layers: 32\n"                   // 3
    "  hidden_size: 4096\n"                // 4
    "  num_attention_heads: 32\n"          // 5
    "  num_query_groups: 8\n"              // 6
    "  seq_length: 131072\n"               // 7
    "  context_parallel_size: 8\n"         // 8
    "cluster:\n"                           // 9
    "  preset: dgx-h100\n";                // 10

inline LoadOptions opts(std::vector<std::string> overrides = {}) {
  LoadOptions o;
  o.overrides = std::move(overrides);
  o.hardware_dir = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/hardware";
  return o;
}

inline Scenario load(const std::string& yaml, std::vector<std::string> overrides = {}) {
  return load_scenario_string(yaml, opts(std::move(overrides)), "t.yaml");
}

// The diagnostics of a load that must fail.
inline Diagnostics load_errors(const std::string& yaml, std::vector<std::string> overrides = {}) {
  try {
    load(yaml, std::move(overrides));
  } catch (const ScenarioError& e) {
    return e.diagnostics();
  }
  ADD_FAILURE() << "expected a ScenarioError";
  return {};
}

// Finds the first diagnostic whose message contains `text`; nullptr when none.
inline const Diagnostic* find(const Diagnostics& ds, const std::string& text) {
  for (const auto& d : ds.items())
    if (d.message.find(text) != std::string::npos) return &d;
  return nullptr;
}

}  // namespace hcpsim::test
