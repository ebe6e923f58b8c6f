// The path `hcpsim compare` takes: traces written as Chrome JSON, read back, compared.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "engine/compare/trace_compare.h"
#include "synthetic_traces.h"

namespace hcpsim {
namespace {

std::string write_temp(const Trace& t, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/hcpsim_compare_" + name + ".json";
  std::ofstream f(path);
  write_chrome_trace(t, f);
  return path;
}

TEST(CompareFiles, ErrorsSurviveTheChromeTraceRoundTrip) {
  Trace p, m;
  p.world_size = m.world_size = 2;
  // Durations of whole microseconds survive the writer's fixed-point microseconds exactly enough.
  test::add_pair(p, m, 0, 0, TaskKind::AttentionForward, Pass::Forward, 0.0, 200e-6, 0.25);
  test::add_pair(p, m, 1, 1, TaskKind::AttentionBackward, Pass::Backward, 1e-3, 400e-6, -0.125);
  const auto pp = write_temp(p, "pred");
  const auto mp = write_temp(m, "meas");
  const auto r = compare_traces(read_chrome_trace(pp), read_chrome_trace(mp));
  std::remove(pp.c_str());
  std::remove(mp.c_str());
  ASSERT_EQ(r.matched, 2u);
  EXPECT_NEAR(r.by_kind.at("attention_forward").mean_rel_error, 0.25, 1e-6);
  EXPECT_NEAR(r.by_kind.at("attention_backward").max_rel_error, -0.125, 1e-6);
  EXPECT_EQ(r.by_rank.at(1).count, 1u);
  EXPECT_TRUE(r.clean());
}

}  // namespace
}  // namespace hcpsim
