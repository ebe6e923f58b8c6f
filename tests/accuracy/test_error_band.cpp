// The error band: case classes, the band of a backtest, the fallback to the level, the committed
// table against a fresh backtest of validation/published, and the band in the simulate report.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "engine/accuracy/accuracy_report.h"
#include "engine/accuracy/backtest.h"
#include "engine/accuracy/backtest_bands.h"
#include "engine/accuracy/case_class.h"
#include "engine/accuracy/case_loader.h"
#include "engine/error_band/error_band.h"
#include "engine/app/engine_backends.h"
#include "engine/app/simulate.h"
#include "engine/backend/backend.h"
#include "engine/report/report.h"
#include "engine/scenario/loader.h"
#include "engine/scenario/scenario.h"

using namespace hcpsim::accuracy;

namespace {

AccuracyCase make_case(const std::string& name, CaseRole role, const std::string& metric) {
  AccuracyCase c;
  c.name = name;
  c.role = role;
  c.metric = metric;
  return c;
}

CaseResult result(const AccuracyCase& c, double measured, double predicted, const std::string& cls) {
  CaseResult r{&c, measured, predicted, 0};
  r.case_class = cls;
  return r;
}

}  // namespace

TEST(ErrorBand, LevelOfEveryMetric) {
  EXPECT_EQ(level_of_metric("tflops"), "kernel");
  EXPECT_EQ(level_of_metric("time_ms"), "kernel");
  EXPECT_EQ(level_of_metric("bus_bandwidth_GBps"), "collective");
  EXPECT_EQ(level_of_metric("time_us"), "collective");
  EXPECT_EQ(level_of_metric("attention_fwd_bwd_ms"), "attention");
  EXPECT_EQ(level_of_metric("layer_backward_ms"), "layer");
  EXPECT_EQ(level_of_metric("step_s"), "layer");
  EXPECT_EQ(level_of_metric("prefill_ms"), "prefill");
  EXPECT_EQ(level_of_metric("train_step_s"), "whole_step");
  EXPECT_EQ(level_of_metric("tokens_per_s_per_gpu"), "whole_step");
  for (CaseKind k : {CaseKind::Kernel, CaseKind::Collective, CaseKind::Scenario})
    for (const auto& m : metrics_of(k)) EXPECT_NO_THROW(level_of_metric(m)) << m;
  EXPECT_THROW(level_of_metric("furlongs"), std::logic_error);
  EXPECT_EQ(level_of_class("whole_step/fp8"), "whole_step");
  EXPECT_EQ(level_of_class("collective"), "collective");
}

TEST(ErrorBand, ClassOfAScenarioIsItsModeAndPrecision) {
  hcpsim::Scenario s;
  EXPECT_EQ(case_class_of(s), "whole_step/bf16");
  s.model.fp8 = "hybrid";
  EXPECT_EQ(case_class_of(s), "whole_step/fp8");
  s.train.mode = hcpsim::TrainMode::Prefill;
  EXPECT_EQ(case_class_of(s), "prefill/fp8");
}

TEST(ErrorBand, RangesOfATimeAndOfARate) {
  const ErrorBand b{-0.10, 0.05, "whole_step/fp8", 4};
  EXPECT_NEAR(b.time_low(10.0), 9.0, 1e-12);
  EXPECT_NEAR(b.time_high(10.0), 10.5, 1e-12);
  // tokens/s is the inverse of the time: a run 10 % faster than predicted has 1/0.9 the rate.
  EXPECT_NEAR(b.rate_low(100.0), 100.0 / 1.05, 1e-9);
  EXPECT_NEAR(b.rate_high(100.0), 100.0 / 0.9, 1e-9);
  EXPECT_EQ(describe(b), "-10.0 % .. +5.0 % (whole_step/fp8, 4 holdout cases)");
}

TEST(ErrorBand, BandsOfABacktestAreTheHoldoutRangePerClassAndLevel) {
  const std::vector<AccuracyCase> cases{
      make_case("t1", CaseRole::Holdout, "train_step_s"),          // time: predicted 0.8 s, measured 1.0 s
      make_case("r1", CaseRole::Holdout, "tokens_per_s_per_gpu"),  // rate: predicted 1100, measured 1000
      make_case("b1", CaseRole::Holdout, "train_step_s"),          // bf16: predicted 2.1, measured 2.0
      make_case("f1", CaseRole::Fit, "train_step_s")};             // fit: never in a band
  const AccuracyReport r = make_accuracy_report({result(cases[0], 1.0, 0.8, "whole_step/fp8"),
                                                 result(cases[1], 1000, 1100, "whole_step/fp8"),
                                                 result(cases[2], 2.0, 2.1, "whole_step/bf16"),
                                                 result(cases[3], 1.0, 3.0, "whole_step/fp8")});
  // measured / predicted time - 1: t1 +25 %, r1 +10 % (the predicted rate 10 % high = time 10 % short), b1 -4.76 %
  EXPECT_NEAR(r.cases[0].time_fraction, 0.25, 1e-12);
  EXPECT_NEAR(r.cases[1].time_fraction, 0.10, 1e-12);
  EXPECT_NEAR(r.cases[2].time_fraction, 2.0 / 2.1 - 1, 1e-12);
  const std::vector<ErrorBand> bands = error_bands_of(r);
  ASSERT_EQ(bands.size(), 3u);   // whole_step, whole_step/bf16, whole_step/fp8, by name
  EXPECT_EQ(bands[0].case_class, "whole_step");
  EXPECT_EQ(bands[0].holdout_cases, 3);
  EXPECT_NEAR(bands[0].low_fraction, 2.0 / 2.1 - 1, 1e-12);
  EXPECT_NEAR(bands[0].high_fraction, 0.25, 1e-12);
  EXPECT_EQ(bands[1].case_class, "whole_step/bf16");
  EXPECT_EQ(bands[2].case_class, "whole_step/fp8");
  EXPECT_EQ(bands[2].holdout_cases, 2);
  EXPECT_NEAR(bands[2].low_fraction, 0.10, 1e-12);
  EXPECT_NEAR(bands[2].high_fraction, 0.25, 1e-12);
  ASSERT_EQ(r.classes.size(), 3u);
  EXPECT_EQ(r.classes[2].fit.count, 1u);   // the fit case is counted, outside the band
  EXPECT_NEAR(r.classes[2].holdout.max_abs_error, 0.2, 1e-12);
}

TEST(ErrorBand, FewHoldoutCasesFallBackToTheLevelThenToNone) {
  std::vector<ErrorBand> table{{-0.2, 0.1, "whole_step", 5}, {-0.05, 0.02, "whole_step/fp8", 2}};
  auto b = band_in(table, "whole_step/fp8");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->case_class, "whole_step");   // 2 < kMinBandHoldoutCases: the level's band
  table[1].holdout_cases = kMinBandHoldoutCases;
  b = band_in(table, "whole_step/fp8");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->case_class, "whole_step/fp8");
  EXPECT_NEAR(b->low_fraction, -0.05, 1e-12);
  EXPECT_FALSE(band_in(table, "prefill/bf16"));
  table[0].holdout_cases = 2;
  EXPECT_FALSE(band_in(table, "whole_step/bf16"));
}

TEST(ErrorBand, GeneratedSourceHoldsEveryBand) {
  const std::string src = error_band_table_source({{-0.123456, 0.0625, "whole_step/fp8", 7}});
  EXPECT_NE(src.find("{-0.123456, 0.062500, \"whole_step/fp8\", 7},"), std::string::npos) << src;
  EXPECT_NE(src.find("const std::vector<ErrorBand>& error_band_table()"), std::string::npos);
  EXPECT_NE(src.find("--error-band-table"), std::string::npos);   // says how to regenerate
}

// The committed table must be the bands of the backtest as it stands: a change of the model or of the
// cases that moves a holdout error moves the band, and the table is regenerated with it.
TEST(ErrorBand, CommittedTableMatchesTheBacktest) {
  const std::vector<AccuracyCase> cases = load_case_folder(HCPSIM_PUBLISHED_DIR);
  std::vector<const AccuracyCase*> all;
  for (const auto& c : cases) all.push_back(&c);
  hcpsim::BackendRegistry backends;
  hcpsim::register_engine_backends(backends);
  BacktestRun run = predict_cases(all, backends, {});
  ASSERT_TRUE(run.failures.empty()) << run.failures.front();
  const std::vector<ErrorBand> fresh = error_bands_of(make_accuracy_report(std::move(run.results)));
  const std::vector<ErrorBand>& table = error_band_table();
  const std::string regen =
      "the committed error band table is stale; regenerate it with\n"
      "  build/cli/hcpsim accuracy validation/published --error-band-table > engine/error_band/error_band_table.cpp\n"
      "and rebuild (then the goldens: cmake --build build --target regen-golden)";
  ASSERT_EQ(table.size(), fresh.size()) << regen;
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    EXPECT_EQ(table[i].case_class, fresh[i].case_class) << regen;
    EXPECT_EQ(table[i].holdout_cases, fresh[i].holdout_cases) << fresh[i].case_class << ": " << regen;
    EXPECT_NEAR(table[i].low_fraction, fresh[i].low_fraction, 1e-6) << fresh[i].case_class << ": " << regen;
    EXPECT_NEAR(table[i].high_fraction, fresh[i].high_fraction, 1e-6) << fresh[i].case_class << ": " << regen;
  }
  // Every whole-step class the suite has must give simulate a band.
  EXPECT_TRUE(band_in(table, "whole_step/bf16"));
  EXPECT_TRUE(band_in(table, "whole_step/fp8"));
}

// simulate's step carries the band of its class, and the JSON report gives the ranges it implies.
TEST(ErrorBand, SimulateReportsTheBandOfItsClass) {
  hcpsim::LoadOptions opt;
  opt.overrides = {"simulation.backend=analytic"};
  hcpsim::Scenario s = hcpsim::load_scenario_file(HCPSIM_SCENARIOS_DIR "/llama3-8b-64k-dgx-h100-p2p.yaml", opt);
  hcpsim::BackendRegistry backends;
  hcpsim::register_engine_backends(backends);
  auto backend = backends.create("analytic");
  hcpsim::SimulateOptions so;
  so.keep_events = false;
  const hcpsim::Report r = hcpsim::simulate_scenario(s, *backend, so).report;
  ASSERT_TRUE(r.step);
  const auto expected = error_band_for(s);
  ASSERT_TRUE(expected);
  ASSERT_TRUE(r.step->error_band);
  EXPECT_EQ(r.step->error_band->case_class, "whole_step/bf16");
  EXPECT_EQ(r.step->error_band->case_class, expected->case_class);
  const auto j = nlohmann::json::parse(hcpsim::report_to_json(r));
  const auto& b = j.at("step").at("error_band");
  EXPECT_EQ(b.at("case_class"), "whole_step/bf16");
  EXPECT_NEAR(b.at("time_s")[0].get<double>(), r.step->time_s * (1 + expected->low_fraction), 1e-9);
  EXPECT_NEAR(b.at("time_s")[1].get<double>(), r.step->time_s * (1 + expected->high_fraction), 1e-9);
  EXPECT_NEAR(b.at("tokens_per_s_per_gpu")[1].get<double>(),
              r.step->tokens_per_s_per_gpu / (1 + expected->low_fraction), 1e-6);
  // FP8 changes the class (and so the band).
  s.model.fp8 = "hybrid";
  EXPECT_EQ(case_class_of(s), "whole_step/fp8");
  const auto fp8 = error_band_for(s);
  ASSERT_TRUE(fp8);
  EXPECT_EQ(fp8->case_class, "whole_step/fp8");
}
