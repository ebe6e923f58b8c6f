// kind: scenario — a scenario file (relative to the case file) or an inline mapping, the case's
// overrides applied by the scenario loader (as on the command line), then the validation rules.
#include <filesystem>
#include <string>

#include "engine/accuracy/case_loader.h"
#include "engine/accuracy/case_prediction.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::accuracy {

Scenario case_scenario(const AccuracyCase& c, const PredictOptions& options) {
  LoadOptions opt;
  opt.overrides = c.scenario.overrides;
  opt.overrides.insert(opt.overrides.end(), options.overrides.begin(), options.overrides.end());
  const std::string shown = c.scenario.path.empty() ? "the inline scenario" : "scenario " + c.scenario.path;
  const std::vector<std::string> hint{
      "overrides are applied as `key.path=value` arguments: the case's, in file order, then the command line's"};
  Scenario s;
  try {
    if (c.scenario.path.empty()) {
      const YAML::Node doc = case_document(c);
      s = load_scenario_node(doc["scenario"], opt, c.file, std::filesystem::path(c.file).parent_path().string());
    } else {
      s = load_scenario_file(c.scenario.path, opt);
    }
  } catch (const ScenarioError& e) {
    throw_case_error(c, "scenario", shown + " does not load (below)", opt.overrides.empty() ? std::vector<std::string>{} : hint,
                     {{e.file(), e.diagnostics()}});
  }
  const Diagnostics d = validate(s);
  if (d.has_errors())
    throw_case_error(c, "scenario", shown + " fails validation (below)", opt.overrides.empty() ? std::vector<std::string>{} : hint,
                     {{s.source_path, d}});
  return s;
}

}  // namespace hcpsim::accuracy
