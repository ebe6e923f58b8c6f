// The application layer (engine/app/): the one backend registry and its one error text, loading with
// overrides and the backend check, and predictions through a named backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engine/app/backend_catalog.h"
#include "engine/app/measure.h"
#include "engine/app/prediction.h"
#include "engine/app/scenario_input.h"

namespace hcpsim {
namespace {

const std::string kScenario = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-128k-dgx-h100-mixed.yaml";

TEST(BackendCatalog, HasTheEngineBackendsAndNamesTheValidOnesWhenWrong) {
  const auto names = app::backend_registry().names();
  EXPECT_NE(std::find(names.begin(), names.end(), "analytic"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "reference"), names.end());
  try {
    app::create_backend("simgird");
    FAIL() << "an unknown backend must throw";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("unknown backend 'simgird'; valid backends in this build:"), std::string::npos) << m;
    EXPECT_NE(m.find(" analytic"), std::string::npos) << m;
    EXPECT_EQ(m, app::backend_registry().unknown_name_message("simgird"));
  }
}

TEST(ScenarioInput, OverridesAreRecordedAndNamed) {
  const auto loaded = app::load_scenario({.file = kScenario, .overrides = {"model.seq_length=65536"}, .backend = "analytic", .check_backend = true});
  EXPECT_TRUE(loaded.usable());
  const Scenario& s = loaded.scenario;
  EXPECT_EQ(s.model.seq_length, 65536);
  EXPECT_EQ(s.simulation.backend, "analytic");   // the command's --backend replaces the file's
  EXPECT_EQ(s.overrides, std::vector<std::string>{"model.seq_length=65536"});
  EXPECT_EQ(s.display_name(), "llama3-8b-128k-dgx-h100-mixed (with model.seq_length=65536)");
  EXPECT_NE(s.configuration().find("seq_length 65536"), std::string::npos) << s.configuration();
  EXPECT_NE(s.configuration().find("backend analytic"), std::string::npos) << s.configuration();
}

TEST(ScenarioInput, MalformedOverrideAndUnknownBackend) {
  EXPECT_THROW(app::load_scenario({.file = kScenario, .overrides = {"model.seq_length"}, .backend = "", .check_backend = true}), app::OverrideSyntaxError);
  const auto loaded = app::load_scenario({.file = kScenario, .overrides = {"simulation.backend=simgird"}, .backend = "", .check_backend = true});
  ASSERT_FALSE(loaded.usable());
  bool named = false;
  for (const auto& d : loaded.diagnostics.items())
    named = named || (d.path == "simulation.backend" && d.message.find("valid backends in this build") != std::string::npos);
  EXPECT_TRUE(named);
}

TEST(ScenarioInput, CalibrationOverrideIsRelativeToTheCurrentDirectory) {
  namespace fs = std::filesystem;
  const auto loaded = app::load_scenario({.file = kScenario, .overrides = {"cluster.calibration=calib.yaml"}, .backend = "analytic", .check_backend = true});
  EXPECT_EQ(fs::path(loaded.scenario.cluster.calibration_path), fs::absolute("calib.yaml"));
}

TEST(Prediction, EveryDistinctLayerKindIsSimulatedAndTheReportRecordsTheRun) {
  // The mixed scenario's list cycles a2a, p2p, all_gather, a2a+p2p: layers 0-3 are simulated even
  // though simulation.layers is 1, and the report names the override.
  auto loaded = app::load_scenario({.file = kScenario, .overrides = {"model.seq_length=16384"}, .backend = "analytic", .check_backend = true});
  ASSERT_TRUE(loaded.usable());
  const SimulationResult r = app::predict(loaded.scenario, "analytic");
  EXPECT_EQ(r.report.layers_simulated, 4);
  EXPECT_EQ(r.report.scenario, "llama3-8b-128k-dgx-h100-mixed (with model.seq_length=16384)");
  EXPECT_EQ(r.report.overrides, std::vector<std::string>{"model.seq_length=16384"});
  EXPECT_NE(r.report.configuration.find("per-layer a2a x8, p2p x8, all_gather x8, a2a+p2p x8"), std::string::npos) << r.report.configuration;
  EXPECT_NE(report_to_text(r.report).find("override: model.seq_length=16384"), std::string::npos);
  // Attention only: one layer, no whole-layer operations.
  const SimulationResult a = app::predict_attention(loaded.scenario, "analytic");
  EXPECT_EQ(a.report.layers_simulated, 1);
  EXPECT_FALSE(a.report.whole_layer);
  EXPECT_THROW(app::predict(loaded.scenario, "reference"), std::invalid_argument);   // does not predict time
}

// A measured run reports through the same Report, and its text says the times were measured.
TEST(Measurement, TheReportSaysItsTimesAreMeasured) {
  auto loaded = app::load_scenario({.file = kScenario, .overrides = {"model.seq_length=16384"}, .backend = "analytic", .check_backend = true});
  ASSERT_TRUE(loaded.usable());
  const SimulationResult predicted = app::predict(loaded.scenario, "analytic");
  EXPECT_FALSE(predicted.report.measured);
  EXPECT_NE(report_to_text(predicted.report).find("simulated time (makespan)"), std::string::npos);
  // A runner that hands back a trace stands in for a device.
  const app::Measurement m = app::measure(loaded.scenario, [&](const TaskGraph&, const RankLayout&) {
    return std::optional<Trace>(predicted.trace);
  });
  ASSERT_TRUE(m.reporting_rank);
  EXPECT_TRUE(m.report.measured);
  const std::string text = report_to_text(m.report);
  EXPECT_NE(text.find("measured time (makespan)"), std::string::npos) << text;
  EXPECT_EQ(text.find("simulated time"), std::string::npos) << text;
}

}  // namespace
}  // namespace hcpsim
