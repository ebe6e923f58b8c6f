// An accuracy case whose measured value is a profiled run's step time (measured_trace:).
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/accuracy/case_loader.h"
#include "tests/support/kineto_synth.h"

using namespace hcpsim;
using namespace hcpsim::accuracy;

namespace {

// Two ranks; rank 1's kernels span 200 us a step, rank 0's 150 us.
std::string traces_folder() {
  Trace t;
  t.world_size = 2;
  auto add = [&](int rank, TaskKind k, Stream s, double start_us, double end_us) {
    TraceEvent e;
    e.rank = rank;
    e.kind = k;
    e.stream = s;
    e.start_s = start_us * 1e-6;
    e.end_s = end_us * 1e-6;
    e.bytes = k == TaskKind::SendRecv ? 1 << 20 : 0;
    t.events.push_back(e);
  };
  add(0, TaskKind::AttentionForward, Stream::Main, 0, 100);
  add(0, TaskKind::SendRecv, Stream::NcclP2P, 50, 150);
  add(1, TaskKind::AttentionForward, Stream::Main, 0, 200);
  const std::string dir = ::testing::TempDir() + "/hcpsim_case_traces";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  hcpsim::testing::KinetoSynthOptions o;
  o.steps = 3;
  hcpsim::testing::write_kineto_traces(t, dir, o);
  return dir;
}

std::string case_text(const std::string& metric, const std::string& measured) {
  return "kind: scenario\nrole: holdout\nsource: {citation: own run, where: profiler traces}\nsetup: s\n"
         "scenario: " HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml\nmetric: " + metric + "\n" + measured;
}

std::string error_of(const std::string& text) {
  try {
    load_case_text(text, "t.yaml");
  } catch (const CaseError& e) {
    return e.what();
  }
  return "";
}

TEST(MeasuredTraceCase, StepTimeOfTheSlowestRank) {
  const std::string dir = traces_folder();
  const AccuracyCase c = load_case_text(case_text("train_step_s", "measured_trace: " + dir + "\n"), "t.yaml");
  EXPECT_NEAR(c.measured, 200e-6, 1e-9);
}

TEST(MeasuredTraceCase, ErrorsNameTheField) {
  const std::string dir = traces_folder();
  std::string e = error_of(case_text("train_step_s", "measured: 1.5\nmeasured_trace: " + dir + "\n"));
  EXPECT_NE(e.find("not both"), std::string::npos) << e;
  e = error_of(case_text("attention_forward_ms", "measured_trace: " + dir + "\n"));
  EXPECT_NE(e.find("measured_trace"), std::string::npos) << e;
  EXPECT_NE(e.find("train_step_s"), std::string::npos) << e;
  e = error_of(case_text("train_step_s", "measured_trace: no-such-folder\n"));
  EXPECT_NE(e.find("t.yaml:7"), std::string::npos) << e;
  EXPECT_NE(e.find("no such file or folder"), std::string::npos) << e;
}

}  // namespace
