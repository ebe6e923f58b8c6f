#pragma once
// HpStyleDescriptor: what the rest of the program asks about one HyperParallel style
// (hyperparallel.style), in one row, beside the Megatron schedules' ScheduleDescriptor rows. The
// planner enumerates, labels and explains HyperParallel candidates from these rows and the mode
// helpers below instead of switching on HpStyle or HpMode. The graph builders are
// hp_context_parallel.h, hp_dsa.h and build.cpp.
//
// Adding a style: an HpStyle value and its name (engine/scenario/hyperparallel_config.h, .cpp), its
// builder, and one row in hp_styles.cpp.
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/scenario/scenario.h"

namespace hcpsim::schedule {

// One HyperParallel mode a planner candidate tries: ulysses_degree (0: unset) and load_balance.
struct HpModeChoice {
  int ulysses_degree = 0;
  bool load_balance = false;
};

struct HpStyleDescriptor {
  HpStyle style = HpStyle::ContextParallel;
  const char* label = "";          // what a planner label adds after "hp" ("", " async", " dsa", ...)
  bool planner_default = false;    // tried by the planner's HyperParallel search on a Megatron base
  // The modes the planner tries for one cp > 1. What the heads forbid (pure Ulysses beyond the KV
  // heads, ...) is left to the validator.
  std::vector<HpModeChoice> (*planner_modes)(int cp) = nullptr;
  // What the style adds to the explanation of a candidate after its mode ("" when nothing).
  std::string (*explain)(const Scenario& s, int cp) = nullptr;
};

// Every style, in the order of HpStyle.
std::span<const HpStyleDescriptor> hp_styles();
const HpStyleDescriptor& hp_style_of(HpStyle style);

// A HyperParallel candidate's comm label ("hp-hybrid-u2", "hp-colossal-u1-lb") and the words its
// full label adds ("hp async hybrid u=2", "hp colossal lb").
std::string hp_comm_label(const HyperParallelConfig& h, int cp);
std::string hp_label(const HyperParallelConfig& h, int cp);

// The title of HyperParallel's configuration of `s` in the GUI's step view: the style, the mode
// with its group sizes, load balance, the synchronous fallback, DSA's top-k.
std::string hp_title(const Scenario& s);

// HyperParallel's configuration of `s` on cp ranks in words: the style, where its all-to-all and
// its all-gather run, what the gather keeps, and what the style adds.
std::string hp_explain(const Scenario& s, int cp);

}  // namespace hcpsim::schedule
