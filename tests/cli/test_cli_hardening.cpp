// Inputs the bad-input table cannot express (special files, large files, stdout checks): each one
// used to hang, read without bound, or print a wrong number with exit 0.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_command.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

const std::string kScenario =
    "name: hard\n"
    "model:\n"
    "  num_layers: 4\n"
    "  hidden_size: 1024\n"
    "  num_attention_heads: 8\n"
    "  seq_length: 8192\n"
    "  context_parallel_size: 4\n"
    "cluster:\n"
    "  gpus_per_node: 4\n"
    "simulation: {backend: analytic, passes: [backward]}\n";

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hcpsim_hard_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  test::RunResult run(const std::string& args) { return test::run_hcpsim(args, (dir_ / "run").string()); }
  fs::path dir_;
};

TEST_F(Hardening, FifoAsScenarioIsRefusedWithoutBlocking) {
  const fs::path fifo = dir_ / "pipe.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto t0 = std::chrono::steady_clock::now();
  // `timeout` turns a hang into exit 124 instead of a stuck test.
  const auto r = run("validate '" + fifo.string() + "'");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.signal, 0);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_LT(s, 10.0);
  EXPECT_NE(r.err.find("is a FIFO (named pipe), not a scenario file"), std::string::npos) << r.err;
}

TEST_F(Hardening, FileLargerThanTheLimitIsRefusedBeforeReading) {
  const fs::path big = dir_ / "big.yaml";
  {
    std::ofstream f(big, std::ios::binary);
    f << "name: big\n";
  }
  fs::resize_file(big, 50u << 20);   // 50 MiB (sparse)
  const auto r = run("validate '" + big.string() + "'");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("is 50.0 MiB; a scenario file is at most 4.0 MiB"), std::string::npos) << r.err;
}

TEST_F(Hardening, BackwardOnlyReportHasNoNegativeRank) {
  const std::string file = write("bwd.yaml", kScenario);
  const auto r = run("simulate '" + file + "' --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j.at("layers").empty());
  for (const auto& l : j.at("layers")) {
    EXPECT_TRUE(l.at("slowest_rank_forward").is_null()) << l.dump();   // the pass was not simulated
    ASSERT_TRUE(l.at("slowest_rank_backward").is_number_integer()) << l.dump();
    EXPECT_GE(l.at("slowest_rank_backward").get<int>(), 0);
  }
  EXPECT_GT(j.at("attention").at("backward_s").get<double>(), 0.0);
  for (const char* fmt : {"text", "csv"}) {
    const auto t = run("simulate '" + file + "' --format " + fmt);
    ASSERT_EQ(t.exit_code, 0) << t.err;
    for (const char* bad : {"nan", "inf", "-1"}) EXPECT_EQ(t.out.find(bad), std::string::npos) << fmt << ": " << bad;
  }
}

TEST_F(Hardening, FullStdoutIsAWriteErrorNotSuccess) {
  const std::string file = write("ok.yaml", kScenario);
  const std::string err = (dir_ / "err.txt").string();
  const int status = std::system(("'" + std::string(HCPSIM_EXE) + "' simulate '" + file + "' >/dev/full 2>'" + err + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(test::read_file(err).find("cannot write to standard output"), std::string::npos) << test::read_file(err);
}

TEST_F(Hardening, SimulateDefaultScenarioStillWorks) {
  // Guard against the new checks refusing ordinary input: the shipped scenarios validate. The
  // backend is set to analytic because `validate` refuses a backend the build lacks, and this test
  // also runs in the sanitizer build, which has no SimGrid.
  for (const auto& e : fs::directory_iterator(fs::path(HCPSIM_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    const auto r = run("validate -q '" + e.path().string() + "' simulation.backend=analytic");
    EXPECT_EQ(r.exit_code, 0) << e.path() << "\n" << r.err;
  }
}

}  // namespace
}  // namespace hcpsim
