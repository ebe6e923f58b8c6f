// `mpirun -np 3 hcpsim sweep|plan`: the ranks share the points and rank 0 writes what a single run
// writes (row for row, wall_s aside), resumes an interrupted file, and a failing rank ends the job
// with a message naming it instead of leaving the others waiting.
#include <gtest/gtest.h>

#include <chrono>

#include "sweep_files.h"

namespace hcpsim::test {
namespace {

// mpirun as CI runs it: oversubscribed (3 ranks on 2 cores), allowed to run as root (CI is root),
// with the shared-memory transport copying (its single-copy mechanism, CMA, needs ptrace rights that
// containers often lack), and under `timeout` so that a hang fails the test instead of blocking it.
std::string mpirun(int ranks) {
  return "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_vader_single_copy_mechanism=none "
         "timeout 300 '" HCPSIM_MPIRUN "' --oversubscribe -np " + std::to_string(ranks) + " " + hcpsim();
}

class SweepMpi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite_ = fs::temp_directory_path() / ("hcpsim_mpi_" + std::to_string(::getpid()));
    fs::create_directories(suite_);
    const Shell s = shell(hcpsim() + " sweep " + sweep_args() + " -j 2 --out serial.csv", suite_);
    ASSERT_EQ(s.exit_code, 0) << s.err;
    serial_stdout_ = s.out;
  }
  static void TearDownTestSuite() { fs::remove_all(suite_); }
  void SetUp() override {
    dir_ = suite_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
  }
  static fs::path serial() { return suite_ / "serial.csv"; }
  static fs::path suite_;
  static std::string serial_stdout_;
  fs::path dir_;
};
fs::path SweepMpi::suite_;
std::string SweepMpi::serial_stdout_;

TEST_F(SweepMpi, ThreeRanksWriteTheSerialFile) {
  expect_serial_file(serial());
  const Shell m = shell(mpirun(3) + " sweep " + sweep_args() + " --out mpi.csv", dir_);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("on 3 MPI ranks"), std::string::npos) << m.err;
  expect_rows(dir_ / "mpi.csv", serial(), all_points());
  // The table on stdout is printed once (by rank 0) and equals the single run's.
  EXPECT_EQ(m.out, serial_stdout_);
}

TEST_F(SweepMpi, ThreeRanksWriteTheSerialJsonFile) {
  ASSERT_EQ(shell(hcpsim() + " -q sweep " + sweep_args() + " -j 2 --out serial.jsonl", dir_).exit_code, 0);
  const Shell m = shell(mpirun(3) + " -q sweep " + sweep_args() + " --out mpi.jsonl", dir_);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto single = read_jsonl_without_wall(dir_ / "serial.jsonl");
  const auto ranks = read_jsonl_without_wall(dir_ / "mpi.jsonl");
  ASSERT_EQ(single.size(), kPoints);
  ASSERT_EQ(ranks.size(), kPoints);
  for (std::size_t i = 0; i < kPoints; ++i) EXPECT_EQ(ranks[i], single[i]) << "point " << i;
}

TEST_F(SweepMpi, ResumesAnInterruptedFile) {
  // The header and the first 10 rows, plus a row cut off while it was written.
  std::istringstream in(slurp(serial()));
  std::string line, kept;
  for (int n = 0; n < 11 && std::getline(in, line); ++n) kept += line + "\n";
  std::ofstream(dir_ / "mpi.csv", std::ios::binary) << kept << "4,32768,a2a,ok";
  const Shell m = shell(mpirun(3) + " sweep " + sweep_args() + " --out mpi.csv --resume", dir_);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_NE(m.err.find("10 points taken from mpi.csv, 26 run now"), std::string::npos) << m.err;
  expect_rows(dir_ / "mpi.csv", serial(), all_points());
}

TEST_F(SweepMpi, ShardsRunUnderMpirunToo) {
  const Shell m = shell(mpirun(2) + " -q sweep " + sweep_args() + " --shard 2/3 --out part-2.csv", dir_);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  std::vector<std::size_t> mine;
  for (std::size_t i = 1; i < kPoints; i += 3) mine.push_back(i);
  expect_rows(dir_ / "part-2.csv", serial(), mine);
}

TEST_F(SweepMpi, PlanUnderMpirunEqualsTheSerialPlan) {
  const std::string args = std::string(" plan '") + HCPSIM_SOURCE_DIR +
                           "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml' --gpus 16 --top 8";
  for (const char* format : {"json", "text"}) {
    const Shell single = shell(hcpsim() + args + " --format " + format, dir_);
    ASSERT_EQ(single.exit_code, 0) << single.err;
    const Shell ranks = shell(mpirun(3) + args + " --format " + format, dir_);
    ASSERT_EQ(ranks.exit_code, 0) << ranks.err;
    EXPECT_EQ(ranks.out, single.out) << format;
    EXPECT_NE(single.out.find("tp"), std::string::npos) << "the plan lists layouts";
  }
  const auto j = nlohmann::json::parse(shell(hcpsim() + args + " --format json", dir_).out);
  EXPECT_EQ(j.at("best").size(), 8u);
}

TEST_F(SweepMpi, AFailingRankEndsTheJobAndIsNamed) {
  const auto t0 = std::chrono::steady_clock::now();
  const Shell m = shell(mpirun(3) + " sweep " + sweep_args() + " --out no/such/folder/out.csv", dir_);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(m.exit_code, 0);
  EXPECT_NE(m.exit_code, 124) << "mpirun hung until `timeout` killed it";
  EXPECT_LT(s, 120.0);
  EXPECT_NE(m.err.find("rank 0 of 3: error: no/such/folder/out.csv: cannot write"), std::string::npos) << m.err;
}

}  // namespace
}  // namespace hcpsim::test
