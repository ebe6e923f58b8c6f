// hcpsim simulate --trace: gzip by name, --trace-ranks / --trace-layers filters, and the readers
// (compare, read_chrome_trace) opening the gzip file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "engine/trace/trace.h"
#include "run_command.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

const std::string kScenario = std::string(HCPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml";

std::string scratch(const std::string& tag) {
  return (fs::temp_directory_path() / ("hcpsim_cli_trace_" + tag + "_" + std::to_string(::getpid()))).string();
}

TEST(CliTrace, GzipFilteredTraceReadsBack) {
  const std::string full = scratch("full") + ".json", part = scratch("part") + ".json.gz";
  const std::string base = "simulate '" + kScenario + "' simulation.layers=2 --backend analytic --format json";
  const auto a = test::run_hcpsim(base + " --trace '" + full + "'", scratch("a"));
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto b = test::run_hcpsim(base + " --trace '" + part + "' --trace-ranks 0,5-6 --trace-layers 1", scratch("b"));
  ASSERT_EQ(b.exit_code, 0) << b.err;
  // The report does not depend on the filter (wall_s aside, it is computed from every event).
  EXPECT_EQ(a.out.substr(0, a.out.find("\"wall_s\"")), b.out.substr(0, b.out.find("\"wall_s\"")));

  const std::string bytes = test::read_file(part);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  const Trace all = read_chrome_trace(full), kept = read_chrome_trace(part);
  std::size_t expected = 0;
  std::set<int> ranks_seen;
  for (const auto& e : all.events) expected += (e.rank == 0 || e.rank == 5 || e.rank == 6) && e.layer == 1;
  for (const auto& e : kept.events) {
    EXPECT_TRUE((e.rank == 0 || e.rank == 5 || e.rank == 6) && e.layer == 1) << e.rank << " " << e.layer;
    ranks_seen.insert(e.rank);
  }
  EXPECT_GT(expected, 0u);
  EXPECT_EQ(kept.events.size(), expected);
  EXPECT_EQ(ranks_seen, (std::set<int>{0, 5, 6}));

  // compare opens gzip files too; a trace against itself has no error.
  const auto c = test::run_hcpsim("compare '" + part + "' '" + part + "'", scratch("c"));
  EXPECT_EQ(c.exit_code, 0) << c.err;
  fs::remove(full);
  fs::remove(part);
}

TEST(CliTrace, FiltersNeedTraceAndValidRanges) {
  const std::string base = "simulate '" + kScenario + "' --backend analytic";
  const auto no_trace = test::run_hcpsim(base + " --trace-ranks 0", scratch("n"));
  EXPECT_EQ(no_trace.exit_code, 2);
  EXPECT_NE(no_trace.err.find("--trace-ranks requires --trace"), std::string::npos) << no_trace.err;
  const auto bad = test::run_hcpsim(base + " --trace /dev/null --trace-ranks 0,5-x", scratch("b"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--trace-ranks: '5-x' is not a non-negative number or a range A-B; expected e.g. 0,5-7"),
            std::string::npos) << bad.err;
  const auto far = test::run_hcpsim(base + " --trace /dev/null --trace-ranks 3-8", scratch("f"));
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_NE(far.err.find("--trace-ranks: 8 is out of range; valid ranks are 0..7"), std::string::npos) << far.err;
  const auto layer = test::run_hcpsim(base + " --trace /dev/null --trace-layers 1", scratch("l"));
  EXPECT_EQ(layer.exit_code, 2);
  EXPECT_NE(layer.err.find("--trace-layers: 1 is out of range; valid layers (simulation.layers) are 0..0"),
            std::string::npos) << layer.err;
}

}  // namespace
}  // namespace hcpsim
