// `hcpsim accuracy`: exit codes, formats, errors, and a scenario case equal to `hcpsim simulate`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_command.h"

using hcpsim::test::run_hcpsim;

namespace {

const std::string kData = HCPSIM_ACCURACY_DATA;

std::string scratch(const std::string& tag) {
  return (std::filesystem::temp_directory_path() / ("hcpsim-acc-cli-" + tag + "-" + std::to_string(::getpid())))
      .string();
}

}  // namespace

TEST(CliAccuracy, SuiteJsonAndBounds) {
  const auto r = run_hcpsim("accuracy '" + kData + "/suite' --format json", scratch("json"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("cases").size(), 11u);
  EXPECT_EQ(j.at("fit").at("count").get<int>() + j.at("holdout").at("count").get<int>(), 11);
  for (const auto& c : j.at("cases")) {
    const double m = c.at("measured"), p = c.at("predicted"), e = c.at("error");
    EXPECT_GT(p, 0) << c.at("name");
    EXPECT_NEAR(e, p / m - 1, 1e-12) << c.at("name");
  }
  const double mean = j.at("holdout").at("mean_abs_error");
  // A bound above the holdout mean passes, one below it fails with exit 1.
  char hi[32], lo[32];
  std::snprintf(hi, sizeof hi, "%.6f", mean * 1.01 + 1e-6);
  std::snprintf(lo, sizeof lo, "%.6f", mean * 0.99);
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' --max-mean-error " + hi, scratch("hi")).exit_code, 0);
  const auto fail = run_hcpsim("accuracy '" + kData + "/suite' --max-mean-error " + lo, scratch("lo"));
  EXPECT_EQ(fail.exit_code, 1);
  EXPECT_NE(fail.err.find("exceeds --max-mean-error"), std::string::npos) << fail.err;
  EXPECT_NE(fail.out.find("bounds NOT met"), std::string::npos) << fail.out;
  const auto each = run_hcpsim("accuracy '" + kData + "/suite' --max-error 0", scratch("each"));
  EXPECT_EQ(each.exit_code, 1);
  EXPECT_NE(each.err.find("exceeds --max-error 0.0 %"), std::string::npos) << each.err;
}

TEST(CliAccuracy, RoleFilter) {
  const auto r = run_hcpsim("accuracy '" + kData + "/suite' --format json --role holdout", scratch("role"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("fit").at("count"), 0);
  for (const auto& c : j.at("cases")) EXPECT_EQ(c.at("role"), "holdout");
  // --role fit runs no holdout case, so holdout bounds are a usage error.
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' --role fit --max-mean-error 0.1", scratch("rf")).exit_code, 2);
}

TEST(CliAccuracy, OverridesApplyToEveryCase) {
  auto predicted = [](const std::string& extra, const std::string& tag) {
    const auto r = run_hcpsim("accuracy '" + kData + "/suite' --format json " + extra, scratch(tag));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
    for (const auto& c : j.value("cases", nlohmann::json::array()))
      if (c.at("name") == "nccl-ag-8") return c.at("predicted").get<double>();
    return 0.0;
  };
  const double base = predicted("", "ov0");
  const double half = predicted("'cluster.intra_node.bandwidth=225 GB/s'", "ov1");
  EXPECT_GT(base, 0);
  EXPECT_GT(half, 0);
  EXPECT_LT(half, 0.75 * base);   // half the NVLink bandwidth: a much slower all_gather
  const auto bad = run_hcpsim("accuracy '" + kData + "/suite' cluster.intra_nod.bandwidth=1", scratch("ovbad"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("unknown scenario field 'cluster.intra_nod.bandwidth'"), std::string::npos) << bad.err;
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' not-an-override", scratch("ovbad2")).exit_code, 2);
}

TEST(CliAccuracy, OrderMismatchIsReportedAndCanFail) {
  const auto r = run_hcpsim("accuracy '" + kData + "/order'", scratch("order"));
  EXPECT_EQ(r.exit_code, 0) << r.err;   // reported, not a failure without --require-order
  EXPECT_NE(r.out.find("reversed (time_ms): MISMATCH  long < short"), std::string::npos) << r.out;
  const auto strict = run_hcpsim("accuracy '" + kData + "/order' --require-order --format json", scratch("strict"));
  EXPECT_EQ(strict.exit_code, 1);
  const auto j = nlohmann::json::parse(strict.out);
  EXPECT_EQ(j.at("groups")[0].at("order_matches"), false);
  EXPECT_EQ(j.at("bounds").at("met"), false);
}

TEST(CliAccuracy, UsageAndInputErrors) {
  EXPECT_EQ(run_hcpsim("accuracy", scratch("none")).exit_code, 2);
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' --format xml", scratch("fmt")).exit_code, 2);
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' --max-mean-error -1", scratch("neg")).exit_code, 2);
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' --plot out.jpg", scratch("jpg")).exit_code, 2);
  const auto file = run_hcpsim("accuracy '" + kData + "/suite/nccl-a2a-8.yaml'", scratch("file"));
  EXPECT_EQ(file.exit_code, 1);
  EXPECT_NE(file.err.find("is a file, not a folder of cases"), std::string::npos) << file.err;
  const auto missing = run_hcpsim("accuracy '" + kData + "/no-such-folder'", scratch("missing"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no such folder"), std::string::npos) << missing.err;
  const auto tmp = std::filesystem::path(scratch("empty-dir"));
  std::filesystem::create_directories(tmp);
  const auto empty = run_hcpsim("accuracy '" + tmp.string() + "'", scratch("empty"));
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_NE(empty.err.find("holds no case files"), std::string::npos) << empty.err;
  std::filesystem::remove_all(tmp);
  const auto bad = run_hcpsim("accuracy '" + kData + "/bad'", scratch("bad"));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad/measured-zero.yaml:8:11: error: measured: must be > 0"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty()) << bad.out;
}

TEST(CliAccuracy, ScenarioCaseEqualsSimulate) {
  const auto sim = run_hcpsim(std::string("simulate '") + HCPSIM_SOURCE_DIR +
                                  "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml' model.seq_length=32768 "
                                  "\"simulation.passes=[forward]\" --backend analytic --format json",
                              scratch("sim"));
  ASSERT_EQ(sim.exit_code, 0) << sim.err;
  const double fwd_ms = nlohmann::json::parse(sim.out).at("attention").at("forward_s").get<double>() * 1e3;
  const auto acc = run_hcpsim("accuracy '" + kData + "/suite' --format json", scratch("acc"));
  ASSERT_EQ(acc.exit_code, 0) << acc.err;
  bool found = false;
  const auto report = nlohmann::json::parse(acc.out);
  for (const auto& c : report.at("cases"))
    if (c.at("name") == "cp-ring-32k") {
      found = true;
      EXPECT_NEAR(c.at("predicted").get<double>(), fwd_ms, 1e-9 * fwd_ms);
    }
  EXPECT_TRUE(found);
}

TEST(CliAccuracy, PlotNeedsChartsAndWritesAPng) {
  const std::string png = scratch("plot") + ".png";
  const auto r = run_hcpsim("accuracy '" + kData + "/suite' --plot '" + png + "'", scratch("plotrun"));
  if (HCPSIM_HAVE_CHARTS) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_TRUE(std::filesystem::exists(png));
    EXPECT_GT(std::filesystem::file_size(png), 10000u);   // a rendered chart, not an empty image
    std::filesystem::remove(png);
  } else {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("--plot needs Qt6 Charts"), std::string::npos) << r.err;
  }
}

TEST(CliAccuracy, SimgridBackendWhenAskedAndBuilt) {
  // The same all_gather twice, once on each backend: one op alone has no contention, so SimGrid
  // must agree with the analytic backend (docs/metrics.md: the backends mirror each other).
  const auto dir = std::filesystem::path(scratch("sg-dir"));
  std::filesystem::create_directories(dir);
  const std::string body =
      "kind: collective\nrole: holdout\nsource: {citation: c, where: w}\nsetup: s\n"
      "cluster: {preset: dgx-h100, nodes: 1}\ncollective: {op: all_gather, ranks: 8, bytes: 1073741824}\n"
      "metric: alg_bandwidth_GBps\nmeasured: 400\n";
  std::ofstream(dir / "analytic.yaml") << body;
  std::ofstream(dir / "simgrid.yaml") << body << "backend: simgrid\n";
  const auto r = run_hcpsim("accuracy '" + dir.string() + "' --format json", scratch("sg"));
  if (HCPSIM_HAVE_SIMGRID_BACKEND) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j.at("cases").size(), 2u);
    EXPECT_EQ(j.at("cases")[1].at("backend"), "simgrid");
    const double a = j.at("cases")[0].at("predicted"), s = j.at("cases")[1].at("predicted");
    EXPECT_NEAR(s, a, 1e-6 * a);
  } else {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("backend 'simgrid' is not in this build"), std::string::npos) << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(CliAccuracy, HelpExamples) {
  const auto r = run_hcpsim("accuracy --help", scratch("help"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("hcpsim accuracy validation/published --format json > accuracy.json"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--max-mean-error 0.10 --max-error 0.20"), std::string::npos) << r.out;
}

TEST(CliAccuracy, LevelFilterAndClassSummaries) {
  const auto r = run_hcpsim("accuracy '" + kData + "/suite' --format json --level collective", scratch("level"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.at("cases").size(), 3u);   // the three nccl-* cases
  for (const auto& c : j.at("cases")) EXPECT_EQ(c.at("case_class"), "collective") << c.at("name");
  ASSERT_EQ(j.at("classes").size(), 1u);
  const auto& cls = j.at("classes")[0];
  EXPECT_EQ(cls.at("name"), "collective");
  EXPECT_EQ(cls.at("fit").at("count").get<int>() + cls.at("holdout").at("count").get<int>(), 3);
  // The whole suite: a kernel class and its level, each with the kernel cases' counts.
  const auto all = nlohmann::json::parse(run_hcpsim("accuracy '" + kData + "/suite' --format json", scratch("cls")).out);
  int kernel_cases = 0;
  for (const auto& c : all.at("cases")) kernel_cases += c.at("kind") == "kernel";
  bool seen = false;
  for (const auto& c : all.at("classes"))
    if (c.at("name") == "kernel/bf16") {
      seen = true;
      EXPECT_EQ(c.at("fit").at("count").get<int>() + c.at("holdout").at("count").get<int>(), kernel_cases);
    }
  EXPECT_TRUE(seen);
  // A level without cases in the folder is an error naming it; an unknown level is a usage error.
  const auto none = run_hcpsim("accuracy '" + kData + "/suite' --level whole_step", scratch("none"));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.err.find("of level whole_step"), std::string::npos) << none.err;
  EXPECT_EQ(run_hcpsim("accuracy '" + kData + "/suite' --level furlong", scratch("bad")).exit_code, 2);
}

TEST(CliAccuracy, ErrorBandTableIsCppOfTheWholeFolder) {
  const auto r = run_hcpsim("accuracy '" + kData + "/suite' --error-band-table", scratch("ebt"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("const std::vector<ErrorBand>& error_band_table()"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"kernel/bf16\""), std::string::npos) << r.out;
  const auto bad = run_hcpsim("accuracy '" + kData + "/suite' --error-band-table --role holdout", scratch("ebt2"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--error-band-table takes the bands of the whole folder"), std::string::npos) << bad.err;
}
