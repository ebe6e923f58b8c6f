// The fuzz corpus of tests/fuzz/data, each file run unmutated through the fuzz target: the seed
// scenarios must be accepted and simulated, and every `regress-*.yaml` (an input that once crashed,
// hung or printed a wrong number) must now be handled within the contract.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz_target.h"

namespace hcpsim::fuzz {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> data_files() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(HCPSIM_FUZZ_DATA))
    if (e.path().extension() == ".yaml") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(FuzzCorpus, EveryFileKeepsTheContract) {
  const auto files = data_files();
  ASSERT_GE(files.size(), 8u);
  int seeds = 0, regressions = 0;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    std::string why;
    const Outcome out = run_target(text.str(), {}, TargetOptions{}, why);
    EXPECT_NE(out, Outcome::ContractBroken) << f << ": " << why;
    if (f.filename().string().rfind("regress-", 0) == 0) {
      ++regressions;
    } else {
      ++seeds;
      EXPECT_EQ(out, Outcome::Accepted) << f << " is a seed: it should be valid and simulate\n" << why;
    }
  }
  EXPECT_GE(seeds, 3);
  EXPECT_GE(regressions, 5);
}

}  // namespace
}  // namespace hcpsim::fuzz
