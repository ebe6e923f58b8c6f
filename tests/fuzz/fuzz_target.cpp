#include "fuzz_target.h"

#include <sstream>

#include "engine/app/engine_backends.h"
#include "engine/app/simulate.h"
#include "engine/backend/backend.h"
#include "engine/core/internal_error.h"
#include "engine/report/report_guard.h"
#include "engine/scenario/loader.h"
#include "engine/validate/feasibility.h"
#include "engine/validate/validate.h"

namespace hcpsim::fuzz {

namespace {

constexpr std::size_t kMaxMessageBytes = 64 * 1024;   // a diagnostic never echoes a whole long input

// Every error of a file must say where: FILE:LINE:COL, or the override that set the value.
bool positioned(const Diagnostics& d, std::string& why) {
  for (const auto& x : d.items()) {
    if (x.severity != Severity::Error) continue;
    const bool from_override = x.message.rfind("<override ", 0) == 0;
    if (!from_override && (x.line < 1 || x.column < 1)) {
      why = "error without FILE:LINE:COL: " + x.path + ": " + x.message.substr(0, 300);
      return false;
    }
    if (x.message.size() > kMaxMessageBytes) {
      why = "error message of " + std::to_string(x.message.size()) + " bytes: " + x.message.substr(0, 200);
      return false;
    }
  }
  if (d.items().size() > 2 * Diagnostics::kMaxKept) {
    why = std::to_string(d.items().size()) + " diagnostics kept (cap " + std::to_string(Diagnostics::kMaxKept) + ")";
    return false;
  }
  return true;
}

BackendRegistry& registry() {
  static BackendRegistry r = [] {
    BackendRegistry reg;
    register_engine_backends(reg);
    return reg;
  }();
  return r;
}

}  // namespace

Outcome run_target(const std::string& yaml, const std::vector<std::string>& overrides, const TargetOptions& opt,
                   std::string& why) {
  Scenario s;
  LoadOptions lo;
  lo.overrides = overrides;
  try {
    s = load_scenario_string(yaml, lo, "fuzz.yaml");
  } catch (const ScenarioError& e) {
    return positioned(e.diagnostics(), why) ? Outcome::Rejected : Outcome::ContractBroken;
  } catch (const std::exception& e) {
    why = std::string("the loader threw something other than ScenarioError: ") + e.what();
    return Outcome::ContractBroken;
  }
  Diagnostics d;
  try {
    d = validate(s);
  } catch (const std::exception& e) {
    why = std::string("validate threw: ") + e.what();
    return Outcome::ContractBroken;
  }
  if (!positioned(d, why)) return Outcome::ContractBroken;
  if (d.has_errors()) return Outcome::Rejected;
  if (estimated_graph_tasks(s) > opt.max_tasks) return Outcome::AcceptedTooLarge;
  // Accepted: the analytic backend must simulate it and every writer must take the numbers.
  try {
    auto backend = registry().create("analytic");
    const SimulationResult r = simulate_scenario(s, *backend);
    check_report_values(r.report);
    if (r.report.makespan_s <= 0) {
      why = "accepted scenario simulated with makespan " + std::to_string(r.report.makespan_s);
      return Outcome::ContractBroken;
    }
    (void)report_to_text(r.report);
    (void)report_to_json(r.report);
    (void)report_to_csv(r.report);
    std::ostringstream trace;
    write_chrome_trace(r.trace, trace);
  } catch (const InternalError& e) {
    why = std::string("internal error on an accepted scenario: ") + e.what();
    return Outcome::ContractBroken;
  } catch (const std::exception& e) {
    why = std::string("an accepted scenario failed to simulate (validate should have refused it): ") + e.what();
    return Outcome::ContractBroken;
  }
  return Outcome::Accepted;
}

}  // namespace hcpsim::fuzz
