#pragma once
// What `hcpsim plan` prints: the ranked layouts as text or JSON (each with its overrides, Megatron-LM
// arguments and Megatron-Bridge overrides), the closest misses when nothing fits, and the files of
// --emit DIR.
#include <string>
#include <vector>

#include "engine/planning/planner.h"

namespace hcpsim::cli {

struct PlanPrint {
  std::string base_path;                  // the scenario file
  std::vector<std::string> overrides;     // given on the command line
  std::string backend;
  int gpus = 0;
};

// Text on stdout.
void print_plan_text(const Scenario& base, const planning::PlanOutcome& out, const PlanPrint& p);
// JSON on stdout.
void print_plan_json(const Scenario& base, const planning::PlanOutcome& out, const PlanPrint& p);
// DIR/plan-K.yaml, .overrides, .megatron.sh, .bridge for each listed layout; false (with the reason on
// stderr) when a file cannot be written.
bool emit_plan(const Scenario& base, const planning::PlanOutcome& out, const PlanPrint& p, const std::string& dir);
// Creates the --emit folder `dir` (and its parents); false, with the reason on stderr under the
// command's name ("plan", "sweep"), when it cannot.
bool make_emit_dir(const std::string& dir, const std::string& command);
// STEM.yaml (`yaml`), STEM.overrides, STEM.megatron.sh (headed by `what` and the warnings), STEM.bridge
// and, when emit_warnings(s) says something, STEM.warnings, for the layout `s` given by `overrides`
// on its base file; every warning also on stderr, prefixed with `who`. False (with the reason on
// stderr) when a file cannot be written.
bool write_layout_files(const std::string& stem, const std::string& yaml, const std::vector<std::string>& overrides,
                        const Scenario& s, const std::string& what, const std::string& who);
// When nothing fits: the sentence on stderr, with the closest misses and the GPU count that fits.
void explain_nothing_fits(const Scenario& base, const planning::PlanOutcome& out, const planning::PlanOptions& o);

}  // namespace hcpsim::cli
