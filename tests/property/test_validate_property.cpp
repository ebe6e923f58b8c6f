// Property: whatever `validate` accepts, the analytic backend (and SimGrid, on a small subset, when
// it is built) simulates with finite, non-negative numbers, and every report writer accepts them.
// Scenarios are generated (tests/property/scenario_generator.h) over every field's valid range.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/app/engine_backends.h"
#include "engine/app/simulate.h"
#include "engine/backend/backend.h"
#include "engine/core/internal_error.h"
#include "engine/report/report_guard.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"
#include "scenario_generator.h"
#ifdef HCPSIM_HAVE_SIMGRID
#include "sim/simgrid_backend.h"
#endif

namespace hcpsim {
namespace {

constexpr int kScenarios = 300;

void expect_usable(const SimulationResult& r, const std::string& yaml, const char* backend) {
  try {   // the writers run the same guard; a failure names the impossible value
    check_report_values(r.report);
    (void)report_to_json(r.report);
    (void)report_to_csv(r.report);
    (void)report_to_text(r.report);
  } catch (const std::exception& e) {
    ADD_FAILURE() << backend << ": " << e.what() << "\n" << yaml;
  }
  EXPECT_GT(r.report.makespan_s, 0.0) << backend << "\n" << yaml;
  for (const auto& e : r.trace.events) {
    ASSERT_TRUE(std::isfinite(e.start_s) && e.start_s >= 0 && std::isfinite(e.end_s) && e.end_s >= e.start_s)
        << backend << ": task " << e.task << " [" << e.start_s << ", " << e.end_s << "]\n" << yaml;
  }
}

TEST(ValidateProperty, AcceptedScenariosSimulateWithFiniteNonNegativeNumbers) {
  BackendRegistry registry;
  register_engine_backends(registry);
#ifdef HCPSIM_HAVE_SIMGRID
  sim::register_simgrid_backend(registry);
#endif
  test::ScenarioGenerator gen(20261201);
  int accepted = 0, rejected = 0, simgrid_runs = 0;
  for (int i = 0; i < kScenarios; ++i) {
    const std::string yaml = gen.next();
    Scenario s;
    try {
      s = load_scenario_string(yaml, {}, "generated.yaml");
    } catch (const ScenarioError& e) {
      ADD_FAILURE() << "the generator writes only in-range, well-formed fields, yet loading failed:\n"
                    << e.what() << yaml;
      continue;
    }
    if (validate(s).has_errors()) {
      ++rejected;
      continue;
    }
    ++accepted;
    auto analytic = registry.create("analytic");
    SimulationResult r;
    ASSERT_NO_THROW(r = simulate_scenario(s, *analytic)) << yaml;
    expect_usable(r, yaml, "analytic");
    if (registry.has("simgrid") && accepted % 25 == 0 && s.world_size() <= 8) {
      auto simgrid = registry.create("simgrid");
      ASSERT_NO_THROW(r = simulate_scenario(s, *simgrid)) << yaml;
      expect_usable(r, yaml, "simgrid");
      ++simgrid_runs;
    }
  }
  // The property says nothing if validation refuses (nearly) everything.
  EXPECT_GE(accepted, kScenarios / 3) << accepted << " accepted, " << rejected << " rejected";
  RecordProperty("accepted", accepted);
  RecordProperty("simgrid_runs", simgrid_runs);
}

TEST(ValidateProperty, GeneratorIsDeterministic) {
  test::ScenarioGenerator a(7), b(7), c(8);
  const std::string first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
}

}  // namespace
}  // namespace hcpsim
