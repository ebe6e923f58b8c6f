// Statistics and the order check on synthetic results with known predictions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/accuracy/accuracy_chart.h"
#include "engine/accuracy/accuracy_report.h"
#include "engine/accuracy/accuracy_writers.h"

using namespace hcpsim::accuracy;

namespace {

AccuracyCase make_case(const std::string& name, CaseRole role, const std::string& group = "",
                       const std::string& metric = "time_ms") {
  AccuracyCase c;
  c.name = name;
  c.role = role;
  c.group = group;
  c.metric = metric;
  return c;
}

}  // namespace

TEST(AccuracyReport, SignedErrorAndPerRoleSummaries) {
  const std::vector<AccuracyCase> cases{make_case("f1", CaseRole::Fit), make_case("f2", CaseRole::Fit),
                                        make_case("h1", CaseRole::Holdout), make_case("h2", CaseRole::Holdout),
                                        make_case("h3", CaseRole::Holdout)};
  // predicted / measured: 1.1, 0.8 (fit); 1.05, 0.9, 1.3 (holdout)
  const AccuracyReport r = make_accuracy_report({{&cases[0], 10, 11, 0},
                                                 {&cases[1], 5, 4, 0},
                                                 {&cases[2], 2, 2.1, 0},
                                                 {&cases[3], 100, 90, 0},
                                                 {&cases[4], 1, 1.3, 0}});
  ASSERT_EQ(r.cases.size(), 5u);
  EXPECT_NEAR(r.cases[0].error, 0.10, 1e-12);
  EXPECT_NEAR(r.cases[1].error, -0.20, 1e-12);
  EXPECT_NEAR(r.cases[3].error, -0.10, 1e-12);
  EXPECT_EQ(r.fit.count, 2u);
  EXPECT_NEAR(r.fit.mean_abs_error, 0.15, 1e-12);
  EXPECT_NEAR(r.fit.max_abs_error, 0.20, 1e-12);
  EXPECT_EQ(r.fit.worst_case, "f2");
  EXPECT_EQ(r.holdout.count, 3u);
  EXPECT_NEAR(r.holdout.mean_abs_error, (0.05 + 0.10 + 0.30) / 3, 1e-12);
  EXPECT_NEAR(r.holdout.max_abs_error, 0.30, 1e-12);
  EXPECT_EQ(r.holdout.worst_case, "h3");
}

TEST(AccuracyReport, BoundsApplyToHoldoutOnly) {
  const std::vector<AccuracyCase> cases{make_case("fit-far-off", CaseRole::Fit), make_case("h", CaseRole::Holdout)};
  const AccuracyReport r = make_accuracy_report({{&cases[0], 1, 3, 0}, {&cases[1], 1, 1.08, 0}});
  AccuracyBounds b;
  b.max_mean_error = 0.10;
  b.max_error = 0.20;
  EXPECT_TRUE(bound_violations(r, b).empty());   // the fit case's 200 % does not count
  b.max_mean_error = 0.05;
  auto v = bound_violations(r, b);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("holdout mean absolute error 8.0 % exceeds --max-mean-error 5.0 %"), std::string::npos) << v[0];
  b.max_mean_error.reset();
  b.max_error = 0.07;
  v = bound_violations(r, b);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("holdout case h: error 8.0 % exceeds --max-error 7.0 %"), std::string::npos) << v[0];
}

TEST(AccuracyReport, NoHoldoutCaseCannotPassABound) {
  const std::vector<AccuracyCase> cases{make_case("f", CaseRole::Fit)};
  const AccuracyReport r = make_accuracy_report({{&cases[0], 1, 1, 0}});
  AccuracyBounds b;
  EXPECT_TRUE(bound_violations(r, b).empty());
  b.max_mean_error = 0.5;
  EXPECT_EQ(bound_violations(r, b).size(), 1u);
}

TEST(AccuracyReport, OrderCheckPerGroup) {
  const std::vector<AccuracyCase> cases{
      make_case("ring", CaseRole::Holdout, "modes"), make_case("a2a", CaseRole::Holdout, "modes"),
      make_case("hcp", CaseRole::Fit, "modes"),      make_case("s1", CaseRole::Fit, "sizes"),
      make_case("s2", CaseRole::Fit, "sizes"),       make_case("alone", CaseRole::Fit)};
  // modes: measured ring 10 > hcp 8 > a2a 7; predicted ring 9 > a2a 8.5 > hcp 8: hcp/a2a swapped.
  // sizes: measured s1 < s2 and predicted s1 < s2 (both 20 % off, same order).
  const AccuracyReport r = make_accuracy_report({{&cases[0], 10, 9, 0},
                                                 {&cases[1], 7, 8.5, 0},
                                                 {&cases[2], 8, 8, 0},
                                                 {&cases[3], 1, 1.2, 0},
                                                 {&cases[4], 2, 2.4, 0},
                                                 {&cases[5], 3, 3, 0}});
  ASSERT_EQ(r.groups.size(), 2u);   // "alone" has no group
  const GroupOrder& modes = r.groups[0];
  EXPECT_EQ(modes.name, "modes");
  EXPECT_FALSE(modes.matches);
  EXPECT_EQ(modes.discordant_pairs, 1u);
  EXPECT_EQ(modes.measured_order, (std::vector<std::string>{"a2a", "hcp", "ring"}));
  EXPECT_EQ(modes.predicted_order, (std::vector<std::string>{"hcp", "a2a", "ring"}));
  const GroupOrder& sizes = r.groups[1];
  EXPECT_TRUE(sizes.matches);
  EXPECT_EQ(sizes.discordant_pairs, 0u);
  AccuracyBounds b;
  b.require_order = true;
  const auto v = bound_violations(r, b);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("group modes"), std::string::npos);
}

TEST(AccuracyReport, TiesInMeasuredAreNotAnOrder) {
  const std::vector<AccuracyCase> cases{make_case("a", CaseRole::Fit, "g"), make_case("b", CaseRole::Fit, "g")};
  const AccuracyReport r = make_accuracy_report({{&cases[0], 5, 4, 0}, {&cases[1], 5, 6, 0}});
  EXPECT_TRUE(r.groups.at(0).matches);
}

TEST(AccuracyReport, ATiedPredictionDoesNotReproduceAMeasuredOrder) {
  const std::vector<AccuracyCase> cases{make_case("cudnn", CaseRole::Fit, "impl"), make_case("fa2", CaseRole::Fit, "impl")};
  const AccuracyReport r = make_accuracy_report({{&cases[0], 0.37, 0.26, 0}, {&cases[1], 0.59, 0.26, 0}});
  EXPECT_FALSE(r.groups.at(0).matches);
  EXPECT_EQ(r.groups.at(0).discordant_pairs, 1u);
  const std::string t = accuracy_to_text(r, {}, {});
  EXPECT_NE(t.find("predicted: cudnn = fa2  (1 pair(s) out of order)"), std::string::npos) << t;
}

TEST(AccuracyWriters, JsonHasTheIssueShape) {
  std::vector<AccuracyCase> cases{make_case("k", CaseRole::Fit, "g", "tflops"),
                                  make_case("h", CaseRole::Holdout, "g", "tflops")};
  cases[0].citation = "Paper";
  cases[0].where = "Table 1";
  const AccuracyReport r = make_accuracy_report({{&cases[0], 500, 450, 0}, {&cases[1], 400, 420, 0}});
  AccuracyBounds b;
  b.max_mean_error = 0.10;
  const auto j = nlohmann::json::parse(accuracy_to_json(r, b, bound_violations(r, b)));
  ASSERT_EQ(j.at("cases").size(), 2u);
  const auto& c0 = j.at("cases")[0];
  EXPECT_EQ(c0.at("name"), "k");
  EXPECT_EQ(c0.at("role"), "fit");
  EXPECT_EQ(c0.at("metric"), "tflops");
  EXPECT_DOUBLE_EQ(c0.at("measured").get<double>(), 500);
  EXPECT_DOUBLE_EQ(c0.at("predicted").get<double>(), 450);
  EXPECT_NEAR(c0.at("error").get<double>(), -0.10, 1e-12);
  EXPECT_EQ(c0.at("source").at("where"), "Table 1");
  EXPECT_EQ(j.at("fit").at("count"), 1);
  EXPECT_NEAR(j.at("fit").at("mean_abs_error").get<double>(), 0.10, 1e-12);
  EXPECT_NEAR(j.at("holdout").at("max_abs_error").get<double>(), 0.05, 1e-12);
  ASSERT_EQ(j.at("groups").size(), 1u);
  EXPECT_EQ(j.at("groups")[0].at("order_matches"), true);
  EXPECT_EQ(j.at("bounds").at("met"), true);
}

TEST(AccuracyWriters, TextListsCasesSummariesAndMismatches) {
  const std::vector<AccuracyCase> cases{make_case("fast", CaseRole::Holdout, "g"),
                                        make_case("slow", CaseRole::Holdout, "g")};
  const AccuracyReport r = make_accuracy_report({{&cases[0], 1, 2, 0}, {&cases[1], 2, 1.5, 0}});
  const std::string t = accuracy_to_text(r, {}, {});
  EXPECT_NE(t.find("+100.0 %"), std::string::npos) << t;
  EXPECT_NE(t.find("-25.0 %"), std::string::npos) << t;
  EXPECT_NE(t.find("fit: no cases"), std::string::npos) << t;
  EXPECT_NE(t.find("holdout: 2 cases, mean |error| 62.5 %, max |error| 100.0 % (fast)"), std::string::npos) << t;
  EXPECT_NE(t.find("g (time_ms): MISMATCH  fast < slow"), std::string::npos) << t;
  EXPECT_NE(t.find("predicted: slow < fast"), std::string::npos) << t;
}

TEST(AccuracyChart, FitAndHoldoutSeriesAndTheIdentityLine) {
  const std::vector<AccuracyCase> cases{make_case("f", CaseRole::Fit), make_case("h1", CaseRole::Holdout),
                                        make_case("h2", CaseRole::Holdout)};
  const AccuracyReport r = make_accuracy_report({{&cases[0], 2, 3, 0}, {&cases[1], 0.5, 0.4, 0}, {&cases[2], 40, 50, 0}});
  const auto c = make_accuracy_chart(r, "t");
  EXPECT_TRUE(c.log10_x);
  EXPECT_TRUE(c.log10_y);
  ASSERT_EQ(c.series.size(), 3u);
  EXPECT_EQ(c.series[0].name, "fit");
  EXPECT_TRUE(c.series[0].points_only);
  EXPECT_EQ(c.series[0].x, std::vector<double>{2});
  EXPECT_EQ(c.series[0].y, std::vector<double>{3});
  EXPECT_EQ(c.series[1].name, "holdout");
  EXPECT_EQ(c.series[1].x.size(), 2u);
  EXPECT_EQ(c.series[2].name, "y = x");
  EXPECT_FALSE(c.series[2].points_only);
  EXPECT_EQ(c.series[2].x, (std::vector<double>{0.4, 50}));   // spans every measured and predicted value
  EXPECT_EQ(c.series[2].y, c.series[2].x);
}
