// `hcpsim sweep --shard I/N` and `hcpsim sweep merge`: three shards merged give the single run's file
// row for row, a shard resumes its own points, and every bad merge is refused with the files named.
#include <algorithm>
#include <gtest/gtest.h>

#include "sweep_files.h"

namespace hcpsim::test {
namespace {

class SweepShards : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    suite_ = fs::temp_directory_path() / ("hcpsim_shards_" + std::to_string(::getpid()));
    fs::create_directories(suite_);
    const Shell s = shell(hcpsim() + " -q sweep " + sweep_args() + " -j 2 --out serial.csv", suite_);
    ASSERT_EQ(s.exit_code, 0) << s.err;
    for (int i = 1; i <= 3; ++i) {
      const Shell p = shell(hcpsim() + " -q sweep " + sweep_args() + " -j 2 --shard " + std::to_string(i) +
                                "/3 --out part-" + std::to_string(i) + ".csv",
                            suite_);
      ASSERT_EQ(p.exit_code, 0) << p.err;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(suite_); }
  void SetUp() override {
    dir_ = suite_ / ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(dir_);
    for (int i = 1; i <= 3; ++i) fs::copy_file(part(i), dir_ / ("part-" + std::to_string(i) + ".csv"));
  }
  static fs::path part(int i) { return suite_ / ("part-" + std::to_string(i) + ".csv"); }
  static fs::path serial() { return suite_ / "serial.csv"; }
  Shell merge(const std::string& files) { return shell(hcpsim() + " sweep merge " + files + " --out all.csv", dir_); }
  // The points of shard i of 3.
  static std::vector<std::size_t> shard_indices(int i) {
    std::vector<std::size_t> v;
    for (std::size_t k = static_cast<std::size_t>(i - 1); k < kPoints; k += 3) v.push_back(k);
    return v;
  }
  void drop_line(const fs::path& p, std::size_t line_no) {
    std::istringstream in(slurp(p));
    std::string line, kept;
    for (std::size_t n = 1; std::getline(in, line); ++n)
      if (n != line_no) kept += line + "\n";
    std::ofstream(p, std::ios::binary | std::ios::trunc) << kept;
  }
  static fs::path suite_;
  fs::path dir_;
};
fs::path SweepShards::suite_;

TEST_F(SweepShards, SerialRunWritesEveryPointInOrder) { expect_serial_file(serial()); }

TEST_F(SweepShards, EachShardHoldsEveryThirdPointAndAHeader) {
  for (int i = 1; i <= 3; ++i) {
    expect_rows(part(i), serial(), shard_indices(i));
    const Rows t = read_csv(part(i));
    EXPECT_NE(t.preamble.find("\"shard\":" + std::to_string(i) + ","), std::string::npos) << t.preamble;
    EXPECT_NE(t.preamble.find("\"shards\":3"), std::string::npos);
    EXPECT_NE(t.preamble.find("model.cp_comm_type=all_gather"), std::string::npos) << "the axes are recorded";
    EXPECT_NE(t.preamble.find("simulation.backend=analytic"), std::string::npos) << "the overrides are recorded";
  }
}

TEST_F(SweepShards, ThreeShardsMergeIntoTheSerialFile) {
  const Shell m = merge("part-3.csv part-1.csv part-2.csv");   // any order
  ASSERT_EQ(m.exit_code, 0) << m.err;
  expect_rows(dir_ / "all.csv", serial(), all_points());
  EXPECT_EQ(read_csv(dir_ / "all.csv").preamble, "") << "the merged file has no shard header";
  // Byte for byte what the single run wrote, once the wall_s column is blanked in both.
  const std::vector<std::string> header = read_csv(dir_ / "all.csv").header;
  const auto wall = std::find(header.begin(), header.end(), "wall_s");
  ASSERT_NE(wall, header.end()) << "the sweep CSV has a wall_s column";
  const std::size_t wall_column = static_cast<std::size_t>(wall - header.begin());
  auto blank_wall = [wall_column](const fs::path& p) {
    Rows t = read_csv(p);
    std::string s;
    for (auto& r : t.rows) {
      r[wall_column] = "";
      for (const auto& f : r) s += f + "|";
      s += "\n";
    }
    return s;
  };
  EXPECT_EQ(blank_wall(dir_ / "all.csv"), blank_wall(serial()));
  EXPECT_NE(m.err.find("3 shards, 36 points"), std::string::npos) << m.err;
}

TEST_F(SweepShards, JsonLinesShardsMergeIntoTheSerialJsonFile) {
  ASSERT_EQ(shell(hcpsim() + " -q sweep " + sweep_args() + " -j 2 --out serial.jsonl", dir_).exit_code, 0);
  for (int i = 1; i <= 2; ++i)
    ASSERT_EQ(shell(hcpsim() + " -q sweep " + sweep_args() + " -j 2 --shard " + std::to_string(i) + "/2 --out p" +
                        std::to_string(i) + ".jsonl",
                    dir_).exit_code,
              0);
  const Shell m = shell(hcpsim() + " sweep merge p1.jsonl p2.jsonl --out all.jsonl", dir_);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto merged = read_jsonl_without_wall(dir_ / "all.jsonl");
  const auto single = read_jsonl_without_wall(dir_ / "serial.jsonl");
  ASSERT_EQ(single.size(), kPoints);
  ASSERT_EQ(merged.size(), kPoints);
  for (std::size_t i = 0; i < kPoints; ++i) {
    EXPECT_EQ(merged[i], single[i]) << "point " << i;
    EXPECT_EQ(merged[i].at("model.cp_comm_type"), expected_labels(i)[2]);
  }
}

TEST_F(SweepShards, AnInterruptedShardResumesItsOwnPoints) {
  // Keep the header line, the CSV header and 4 rows, plus a row cut off while it was written.
  const fs::path p = dir_ / "part-2.csv";
  std::istringstream in(slurp(p));
  std::string line, kept;
  for (int n = 0; n < 6 && std::getline(in, line); ++n) kept += line + "\n";
  std::ofstream(p, std::ios::binary | std::ios::trunc) << kept << "8,16384,a2";
  const Shell r = shell(hcpsim() + " sweep " + sweep_args() + " -j 2 --shard 2/3 --out part-2.csv --resume", dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("4 points taken from part-2.csv, 8 run now"), std::string::npos) << r.err;
  expect_rows(p, serial(), shard_indices(2));
  // Resuming it as another shard, or as a plain sweep, is refused.
  const Shell wrong = shell(hcpsim() + " sweep " + sweep_args() + " --shard 1/3 --out part-2.csv --resume", dir_);
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_NE(wrong.err.find("part-2.csv is shard 2/3, not 1/3"), std::string::npos) << wrong.err;
  const Shell plain = shell(hcpsim() + " sweep " + sweep_args() + " --out part-2.csv --resume", dir_);
  EXPECT_EQ(plain.exit_code, 1);
  EXPECT_NE(plain.err.find("resume it with --shard 2/3"), std::string::npos) << plain.err;
  const Shell other = shell(hcpsim() + " sweep " + sweep_args("model.num_layers=16") + " --shard 2/3 --out part-2.csv --resume", dir_);
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_NE(other.err.find("part-2.csv is a part of another sweep"), std::string::npos) << other.err;
}

TEST_F(SweepShards, MergeRefusesAMissingShard) {
  const Shell m = merge("part-1.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("shard 2/3 is missing"), std::string::npos) << m.err;
  EXPECT_FALSE(fs::exists(dir_ / "all.csv"));
}

TEST_F(SweepShards, MergeRefusesADuplicateShard) {
  fs::copy_file(dir_ / "part-2.csv", dir_ / "part-2-again.csv");
  const Shell m = merge("part-1.csv part-2.csv part-2-again.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("part-2-again.csv and part-2.csv are both shard 2/3"), std::string::npos) << m.err;
  EXPECT_FALSE(fs::exists(dir_ / "all.csv"));
}

TEST_F(SweepShards, MergeRefusesAPartOfAnotherSweep) {
  const Shell s = shell(hcpsim() + " -q sweep " + sweep_args("model.num_layers=16") + " --shard 2/3 --out other-2.csv", dir_);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const Shell m = merge("part-1.csv other-2.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("other-2.csv belongs to another sweep than part-1.csv"), std::string::npos) << m.err;
  EXPECT_NE(m.err.find("overrides"), std::string::npos) << "names what differs: " << m.err;
}

TEST_F(SweepShards, MergeRefusesPartsOfAnotherShardCount) {
  const Shell s = shell(hcpsim() + " -q sweep " + sweep_args() + " --shard 2/2 --out half-2.csv", dir_);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  const Shell m = merge("part-1.csv half-2.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("half-2.csv is shard 2/2 but part-1.csv is shard 1/3"), std::string::npos) << m.err;
}

TEST_F(SweepShards, MergeRefusesAnUnfinishedShard) {
  drop_line(dir_ / "part-3.csv", 5);   // line 1 is the shard header, line 2 the CSV header
  const Shell m = merge("part-1.csv part-2.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("part-3.csv (shard 3/3): 1 of its 12 points are missing (model.context_parallel_size=2;"
                       "model.seq_length=65536;model.cp_comm_type=all_gather)"),
            std::string::npos)
      << m.err;
  EXPECT_NE(m.err.find("--resume"), std::string::npos) << m.err;
  EXPECT_FALSE(fs::exists(dir_ / "all.csv"));
}

TEST_F(SweepShards, MergeRefusesADuplicatedOrMisplacedRow) {
  // Shard 1's first row copied into shard 1 again, and into shard 2.
  std::istringstream in(slurp(dir_ / "part-1.csv"));
  std::string line;
  for (int n = 0; n < 3; ++n) std::getline(in, line);   // the first point's row
  std::ofstream(dir_ / "part-1.csv", std::ios::app) << line << "\n";
  std::ofstream(dir_ / "part-2.csv", std::ios::app) << line << "\n";
  const Shell m = merge("part-1.csv part-2.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("part-1.csv: point model.context_parallel_size=2;model.seq_length=16384;model.cp_comm_type=p2p "
                       "appears twice"),
            std::string::npos)
      << m.err;
  EXPECT_NE(m.err.find("part-2.csv (shard 2/3): point model.context_parallel_size=2;model.seq_length=16384;"
                       "model.cp_comm_type=p2p belongs to shard 1/3"),
            std::string::npos)
      << m.err;
}

TEST_F(SweepShards, MergeRefusesAFileWithoutShardHeader) {
  fs::copy_file(serial(), dir_ / "serial.csv");
  const Shell m = merge("serial.csv part-2.csv part-3.csv");
  EXPECT_EQ(m.exit_code, 1);
  EXPECT_NE(m.err.find("serial.csv: no shard header on line 1"), std::string::npos) << m.err;
  const Shell missing = merge("part-1.csv part-2.csv nothere.csv");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("nothere.csv: no such file"), std::string::npos) << missing.err;
}

TEST_F(SweepShards, MergeRefusesAnotherOutputFormatOrOverwritingAPart) {
  const Shell json = shell(hcpsim() + " sweep merge part-1.csv part-2.csv part-3.csv --out all.jsonl", dir_);
  EXPECT_EQ(json.exit_code, 2);
  EXPECT_NE(json.err.find("the parts are CSV"), std::string::npos) << json.err;
  const Shell self = shell(hcpsim() + " sweep merge part-1.csv part-2.csv part-3.csv --out part-1.csv", dir_);
  EXPECT_EQ(self.exit_code, 2);
  EXPECT_NE(self.err.find("is one of the part files"), std::string::npos) << self.err;
}

TEST_F(SweepShards, ShardOptionIsChecked) {
  for (const char* bad : {"0/3", "4/3", "2", "a/b", "1/0"}) {
    const Shell s = shell(hcpsim() + " sweep " + sweep_args() + " --shard " + bad + " --out x.csv", dir_);
    EXPECT_EQ(s.exit_code, 2) << bad;
    EXPECT_NE(s.err.find("--shard"), std::string::npos) << bad << ": " << s.err;
    EXPECT_FALSE(fs::exists(dir_ / "x.csv")) << bad;
  }
  const Shell no_out = shell(hcpsim() + " sweep " + sweep_args() + " --shard 1/3", dir_);
  EXPECT_EQ(no_out.exit_code, 2);
  EXPECT_NE(no_out.err.find("--shard 1/3 needs --out FILE"), std::string::npos) << no_out.err;
}

}  // namespace
}  // namespace hcpsim::test
