// Sweep engine: axes, expansion, result files, the worker pool, interruption and --resume.
// The evaluator is a fake (no simulation backend): it derives metrics from the point's labels
// and leaves a marker file per evaluation so the tests can count which points really ran.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine/planning/sweep_runner.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::planning {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("hcpsim-sweep-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int count_lines(const fs::path& p) {
  const std::string s = read_all(p);
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

int count_markers(const fs::path& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".ran") ++n;
  return n;
}

// Fake evaluator: step_s = cp * 0.001 + seq / 1e9; cp "3" is invalid; writes DIR/<index>.ran.
PointEvaluator fake(const fs::path& markers, int sleep_from_index = -1) {
  return [markers, sleep_from_index](const SweepPoint& p) {
    std::ofstream(markers / (std::to_string(p.index) + ".ran")) << p.key({"a", "b"});
    if (sleep_from_index >= 0 && static_cast<int>(p.index) >= sleep_from_index)
      std::this_thread::sleep_for(std::chrono::seconds(20));
    PointResult r;
    if (p.labels[0] == "3") {
      r.status = PointStatus::Invalid;
      r.message = "model.context_parallel_size: 3 does not divide, \"really\"";
      return r;
    }
    r.comm_type = "p2p";
    r.fits = true;
    r.metrics.step_s = std::stoi(p.labels[0]) * 0.001 + std::stod(p.labels[1]) / 1e9;
    r.metrics.attention_tflops_per_gpu = 100.0 / std::stoi(p.labels[0]);
    return r;
  };
}

SweepSpec two_axes(std::vector<std::string> cps = {"2", "3", "4"}) {
  SweepSpec spec;
  AxisGroup a{{"a"}, {}};
  for (const auto& v : cps) a.values.push_back({{v}, {"model.context_parallel_size=" + v}});
  spec.groups.push_back(a);
  spec.groups.push_back(parse_vary("b=1000,2000"));
  return spec;
}

TEST(SweepSpec, VarySplitsOnTopLevelCommasOnly) {
  const AxisGroup g = parse_vary("model.hierarchical_context_parallel_sizes=[2,4], [4,2]");
  ASSERT_EQ(g.values.size(), 2u);
  EXPECT_EQ(g.values[0].labels[0], "[2,4]");
  EXPECT_EQ(g.values[1].overrides[0], "model.hierarchical_context_parallel_sizes=[4,2]");
  EXPECT_THROW(parse_vary("model.cp"), std::invalid_argument);
  EXPECT_THROW(parse_vary("a=1,,2"), std::invalid_argument);
}

TEST(SweepSpec, CartesianProductFirstAxisSlowest) {
  SweepSpec spec = two_axes();
  spec.overrides = {"x=1"};
  const auto pts = expand_points(spec, {"y=2"});
  ASSERT_EQ(pts.size(), 6u);
  EXPECT_EQ(pts[1].labels, (std::vector<std::string>{"2", "2000"}));
  EXPECT_EQ(pts[2].labels, (std::vector<std::string>{"3", "1000"}));
  EXPECT_EQ(pts[5].overrides,
            (std::vector<std::string>{"x=1", "y=2", "model.context_parallel_size=4", "b=2000"}));
  EXPECT_EQ(pts[5].key({"a", "b"}), "a=4;b=2000");
}

TEST(SweepSpec, CpLayoutsGenerateEveryCommTypeAndSplit) {
  const AxisGroup g = make_cp_layouts({2, 8}, {"p2p", "a2a", "all_gather", "a2a+p2p"});
  // cp=2: three flat types, no split with 2 <= A < 2; cp=8: three + A in {2, 4}.
  ASSERT_EQ(g.values.size(), 3u + 5u);
  EXPECT_EQ(g.values[6].labels, (std::vector<std::string>{"8", "hcp A=2"}));
  EXPECT_EQ(g.values[6].overrides[2], "model.hierarchical_context_parallel_sizes=[2,4]");
  EXPECT_EQ(g.values[7].overrides[2], "model.hierarchical_context_parallel_sizes=[4,2]");
  EXPECT_THROW(make_cp_layouts({4}, {"allgather"}), std::invalid_argument);
}

TEST(SweepSpec, CpLayoutsAcceptDistFlashAttn) {
  const AxisGroup g = make_cp_layouts({8}, {"p2p", "dfa"});
  ASSERT_EQ(g.values.size(), 2u);
  EXPECT_EQ(g.values[1].labels, (std::vector<std::string>{"8", "dfa"}));
  EXPECT_EQ(g.values[1].overrides[1], "model.cp_comm_type=dfa");
  try {
    make_cp_layouts({8}, {"distflash"});
    FAIL() << "an unknown comm type must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dfa"), std::string::npos) << e.what();
  }
}

TEST(SweepSpec, LoadsSweepFileWithBaseRelativeToIt) {
  TempDir t;
  fs::create_directories(t.path / "sweeps");
  std::ofstream(t.path / "sweeps" / "s.yaml")
      << "base: ../x.yaml\nmetric: attention_s\noverrides:\n  cluster.nodes: 4\n"
         "vary:\n  model.seq_length: [1024, 2048]\ncp_layouts:\n  cp: [4]\n  comm_types: [p2p, a2a+p2p]\n";
  const SweepSpec spec = load_sweep_file((t.path / "sweeps" / "s.yaml").string());
  EXPECT_EQ(spec.base_path, (t.path / "x.yaml").lexically_normal().string());
  EXPECT_EQ(spec.metric, "attention_s");
  EXPECT_EQ(spec.overrides, std::vector<std::string>{"cluster.nodes=4"});
  EXPECT_EQ(sweep_columns(spec), (std::vector<std::string>{"model.seq_length", "cp", "layout"}));
  EXPECT_EQ(expand_points(spec, {}).size(), 2u * 2u);   // p2p + hcp A=2
  EXPECT_TRUE(is_sweep_file((t.path / "sweeps" / "s.yaml").string()));

  std::ofstream(t.path / "bad.yaml") << "base: x.yaml\nvary:\n  a: [1]\nvaryy: 3\n";
  try {
    load_sweep_file((t.path / "bad.yaml").string());
    FAIL() << "unknown field accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("bad.yaml:4"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("varyy"), std::string::npos) << e.what();
  }
}

TEST(SweepResult, CsvRoundTripKeepsQuotedMessagesAndNaN) {
  PointResult r;
  r.labels = {"8", "hcp A=2"};
  r.status = PointStatus::Invalid;
  r.message = "a, \"quoted\" message";
  const std::string row = csv_row(r);
  const auto fields = split_csv_line(row);
  ASSERT_EQ(fields.size(), split_csv_line(csv_header({"cp", "layout"})).size());
  EXPECT_EQ(fields.back(), r.message);
  EXPECT_EQ(fields[2], "invalid");
  EXPECT_EQ(fields[4], "");   // step_s not available
}

TEST(SweepResult, SortBestFirstInvalidLast) {
  std::vector<PointResult> rs(3);
  rs[0].labels = {"a"};
  rs[0].metrics.step_s = 2;
  rs[0].metrics.attention_tflops_per_gpu = 300;
  rs[1].labels = {"b"};
  rs[1].status = PointStatus::Invalid;
  rs[2].labels = {"c"};
  rs[2].metrics.step_s = 1;
  rs[2].metrics.attention_tflops_per_gpu = 200;
  sort_results(rs, "step_s");
  EXPECT_EQ(rs[0].labels[0], "c");
  EXPECT_EQ(rs[2].labels[0], "b");
  sort_results(rs, "attention_tflops_per_gpu");
  EXPECT_EQ(rs[0].labels[0], "a");
  EXPECT_THROW(sort_results(rs, "speed"), std::invalid_argument);
}

TEST(SweepRunner, RunsEveryPointInWorkersAndKeepsInvalidOnes) {
  TempDir t;
  const SweepSpec spec = two_axes();
  const auto cols = sweep_columns(spec);
  SweepRunOptions o;
  o.jobs = 2;
  o.out_path = (t.path / "r.csv").string();
  const SweepOutcome out = run_sweep(expand_points(spec, {}), cols, fake(t.path), o);
  EXPECT_EQ(out.evaluated, 6u);
  EXPECT_EQ(count_markers(t.path), 6);
  EXPECT_EQ(count_lines(t.path / "r.csv"), 7);   // header + 6
  const auto back = read_results_file(o.out_path, cols);
  ASSERT_EQ(back.size(), 6u);
  int invalid = 0;
  for (const auto& r : back) {
    if (r.status == PointStatus::Invalid) {
      ++invalid;
      EXPECT_NE(r.message.find("does not divide"), std::string::npos);
      EXPECT_EQ(r.labels[0], "3");
    } else {
      EXPECT_NEAR(r.metrics.step_s, std::stoi(r.labels[0]) * 0.001 + std::stod(r.labels[1]) / 1e9, 1e-12);
    }
  }
  EXPECT_EQ(invalid, 2);
}

TEST(SweepRunner, CrashingOrThrowingWorkerBecomesAnErrorRow) {
  TempDir t;
  SweepSpec spec;
  spec.groups.push_back(parse_vary("a=ok,throw,abort"));
  const auto cols = sweep_columns(spec);
  SweepRunOptions o;
  o.jobs = 3;
  o.out_path = (t.path / "r.jsonl").string();
  const SweepOutcome out = run_sweep(expand_points(spec, {}), cols, [](const SweepPoint& p) {
    if (p.labels[0] == "throw") throw std::runtime_error("no such backend");
    if (p.labels[0] == "abort") ::abort();
    return PointResult{};
  }, o);
  ASSERT_EQ(out.results.size(), 3u);
  for (const auto& r : read_results_file(o.out_path, cols)) {
    if (r.labels[0] == "ok") {
      EXPECT_EQ(r.status, PointStatus::Ok);
    } else if (r.labels[0] == "throw") {
      EXPECT_EQ(r.message, "no such backend");
    } else {
      EXPECT_EQ(r.status, PointStatus::Error);
      EXPECT_NE(r.message.find("signal"), std::string::npos) << r.message;
    }
  }
}

TEST(SweepRunner, TimeoutKillsASlowWorker) {
  TempDir t;
  SweepSpec spec;
  spec.groups.push_back(parse_vary("a=1"));
  SweepRunOptions o;
  o.jobs = 1;
  o.point_timeout_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const SweepOutcome out = run_sweep(expand_points(spec, {}), sweep_columns(spec), [](const SweepPoint&) {
    std::this_thread::sleep_for(std::chrono::seconds(20));
    return PointResult{};
  }, o);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  ASSERT_EQ(out.results.size(), 1u);
  EXPECT_NE(out.results[0].message.find("timed out"), std::string::npos);
}

TEST(SweepRunner, ResumeSkipsPointsInAPartialFile) {
  TempDir t;
  const SweepSpec spec = two_axes();
  const auto cols = sweep_columns(spec);
  const auto all = expand_points(spec, {});
  SweepRunOptions o;
  o.jobs = 2;
  o.out_path = (t.path / "r.csv").string();
  // A first run that did only points 0..2, plus a row cut off while it was being written.
  run_sweep({all[0], all[1], all[2]}, cols, fake(t.path), o);
  { std::ofstream(o.out_path, std::ios::app) << "4,1000,ok,p2"; }
  for (const auto& e : fs::directory_iterator(t.path))
    if (e.path().extension() == ".ran") fs::remove(e.path());

  o.resume = true;
  const SweepOutcome out = run_sweep(all, cols, fake(t.path), o);
  EXPECT_EQ(out.resumed, 3u);
  EXPECT_EQ(out.evaluated, 3u);
  EXPECT_EQ(count_markers(t.path), 3);
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(fs::exists(t.path / (std::to_string(i) + ".ran")));
  EXPECT_EQ(count_lines(t.path / "r.csv"), 7);
  EXPECT_EQ(read_results_file(o.out_path, cols).size(), 6u);
  // A second resume has nothing left to do.
  EXPECT_EQ(run_sweep(all, cols, fake(t.path), o).evaluated, 0u);
}

TEST(SweepRunner, KilledSweepResumesWhereItStopped) {
  TempDir t;
  const SweepSpec spec = two_axes({"2", "4", "5"});
  const auto cols = sweep_columns(spec);
  const auto all = expand_points(spec, {});
  const std::string out_path = (t.path / "r.csv").string();
  const pid_t sweeper = ::fork();
  ASSERT_GE(sweeper, 0);
  if (sweeper == 0) {
    ::setpgid(0, 0);   // own process group, so the kill below takes its workers too
    SweepRunOptions o;
    o.jobs = 1;
    o.out_path = out_path;
    run_sweep(all, cols, fake(t.path, /*sleep_from_index=*/2), o);
    _exit(0);
  }
  ::setpgid(sweeper, sweeper);
  // Wait until points 0 and 1 are in the file and point 2 has started, then kill everything.
  const auto t0 = std::chrono::steady_clock::now();
  while ((!fs::exists(out_path) || count_lines(out_path) < 3 || !fs::exists(t.path / "2.ran")) &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(8))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(-sweeper, SIGKILL);
  int status = 0;
  ::waitpid(sweeper, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  ASSERT_EQ(count_lines(out_path), 3);   // header + points 0, 1
  for (const auto& e : fs::directory_iterator(t.path))
    if (e.path().extension() == ".ran") fs::remove(e.path());

  SweepRunOptions o;
  o.jobs = 2;
  o.out_path = out_path;
  o.resume = true;
  const SweepOutcome out = run_sweep(all, cols, fake(t.path), o);
  EXPECT_EQ(out.resumed, 2u);
  EXPECT_EQ(out.evaluated, 4u);
  EXPECT_FALSE(fs::exists(t.path / "0.ran"));
  EXPECT_FALSE(fs::exists(t.path / "1.ran"));
  EXPECT_TRUE(fs::exists(t.path / "2.ran"));
  EXPECT_EQ(read_results_file(out_path, cols).size(), 6u);
}

TEST(SweepRunner, ResumeRefusesAFileOfAnotherSweep) {
  TempDir t;
  std::ofstream(t.path / "r.csv") << "x,y,status\n";
  SweepSpec spec = two_axes();
  SweepRunOptions o;
  o.out_path = (t.path / "r.csv").string();
  o.resume = true;
  EXPECT_THROW(run_sweep(expand_points(spec, {}), sweep_columns(spec), fake(t.path), o),
               std::runtime_error);
}

}  // namespace
}  // namespace hcpsim::planning
