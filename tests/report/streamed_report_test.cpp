// The report computed while a run streams (graph + task times, GraphEventView) against the report
// computed from the full trace of TraceEvents (TraceEventView): same numbers, same critical path,
// same trace file bytes, on every example scenario.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <unistd.h>

#include "engine/fold/fold_plan.h"
#include "engine/fold/fold_report.h"
#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/report/critical_path.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "engine/trace/chrome_trace_writer.h"
#include "engine/trace/graph_event_view.h"
#include "engine/trace/trace_output.h"
#include "tests/support/file_bytes.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

const fs::path kScenarios = fs::path(HCPSIM_SOURCE_DIR) / "scenarios";

std::vector<std::string> scenario_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(kScenarios))
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Scenario load(const std::string& name) {
  Scenario s = load_scenario_file((kScenarios / (name + ".yaml")).string());
  s.simulation.backend = "analytic";
  return s;
}

std::string temp_path(const std::string& suffix) {
  return (fs::temp_directory_path() / ("hcpsim_streamed_" + std::to_string(::getpid()) + suffix)).string();
}

std::string slurp(const std::string& path) { return test::file_bytes(path); }

// The report computed from the run's full trace, with the fields simulate_scenario fills after the
// report (not computed from events) copied from the run's own report.
Report report_from_trace(const Scenario& s, const SimulationResult& r) {
  ReportOptions ro;
  ro.num_layers = s.model.num_layers;
  ro.wall_s = r.report.wall_s;
  Report from_trace = compute_report(r.trace, ro);
  // A folded run's trace is one unit's; its sums over ranks become the job's as simulate's do.
  if (r.report.fold && r.report.fold->folded) apply_fold(from_trace, plan_fold(s));
  from_trace.configuration = r.report.configuration;
  from_trace.overrides = r.report.overrides;
  from_trace.cluster_world_size = r.report.cluster_world_size;
  from_trace.fold = r.report.fold;
  from_trace.memory = r.report.memory;
  from_trace.step = r.report.step;
  from_trace.efficiency_sources = r.report.efficiency_sources;
  return from_trace;
}

class StreamedReport : public ::testing::TestWithParam<std::string> {};

// simulate_scenario computes its report from the graph and the task times; the same events kept as
// a Trace must give a report that prints identically (JSON has every field, critical path included).
TEST_P(StreamedReport, EqualsTheReportOfTheFullTrace) {
  const Scenario s = load(GetParam());
  AnalyticBackend backend;
  const SimulationResult r = simulate_scenario(s, backend);
  ASSERT_EQ(r.trace.events.size(), r.tasks);
  const Report from_trace = report_from_trace(s, r);
  EXPECT_FALSE(r.report.critical_path.empty());
  EXPECT_EQ(report_to_json(from_trace), report_to_json(r.report));
  EXPECT_EQ(report_to_text(from_trace), report_to_text(r.report));
}

// Runs of 100,000 events or more compute the critical path on a second thread (compute_report);
// on such a run (the 512-rank a2a+p2p [8,64] layer of bench/sim, 104,960 tasks) the report must
// still equal the one from the full trace, and its critical path the one computed directly.
TEST(StreamedReport, ALargeRunGivesTheSameReportAndCriticalPath) {
  LoadOptions lo;
  lo.overrides = {"model.context_parallel_size=512", "model.hierarchical_context_parallel_sizes=[8,64]", "cluster.nodes=64",
                  "model.num_layers=1", "simulation.layers=1", "simulation.backend=analytic"};
  const Scenario s =
      load_scenario_file((fs::path(HCPSIM_SOURCE_DIR) / "bench" / "sim" / "a2a-p2p-8x128-4-layers.yaml").string(), lo);
  AnalyticBackend backend;
  const SimulationResult r = simulate_scenario(s, backend);
  ASSERT_GE(r.tasks, 100000u);   // the threaded path
  const Report from_trace = report_from_trace(s, r);
  EXPECT_EQ(report_to_json(from_trace), report_to_json(r.report));
  const std::vector<CriticalPathEntry> direct = critical_path(r.trace);
  ASSERT_EQ(direct.size(), r.report.critical_path.size());
  ASSERT_FALSE(direct.empty());
  for (std::size_t k = 0; k < direct.size(); ++k) {
    EXPECT_EQ(direct[k].task, r.report.critical_path[k].task) << k;
    EXPECT_EQ(direct[k].start_s, r.report.critical_path[k].start_s) << k;
    EXPECT_EQ(direct[k].end_s, r.report.critical_path[k].end_s) << k;
  }
}

// The streamed trace file holds the same bytes as the trace written from TraceEvents; the gzip file
// reads back to the same events; a filter keeps exactly the events of its ranks and layers.
TEST_P(StreamedReport, StreamedTraceFileEqualsTheWrittenTrace) {
  const Scenario s = load(GetParam());
  AnalyticBackend backend;
  SimulateOptions so;
  so.replicas_once = false;
  so.trace_path = temp_path(".json");
  const SimulationResult r = simulate_scenario(s, backend, so);
  EXPECT_EQ(r.trace_file_events, r.tasks);
  std::ostringstream expected;
  write_chrome_trace(r.trace, expected);
  EXPECT_EQ(slurp(so.trace_path), expected.str());

  SimulateOptions gz = so;
  gz.keep_events = false;
  gz.trace_path = temp_path(".json.gz");
  gz.trace_filter.ranks = {{0, 0}, {s.world_size() - 1, s.world_size() - 1}};
  gz.trace_filter.layers = {{0, 0}};
  const SimulationResult f = simulate_scenario(s, backend, gz);
  EXPECT_TRUE(f.trace.events.empty());
  const std::string bytes = slurp(gz.trace_path);
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);   // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  const Trace back = read_chrome_trace(gz.trace_path);
  std::size_t kept = 0;
  for (const auto& e : r.trace.events) kept += gz.trace_filter.keeps(e.rank, e.layer) ? 1 : 0;
  EXPECT_GT(kept, 0u);
  EXPECT_LT(kept, r.trace.events.size());
  EXPECT_EQ(back.events.size(), kept);
  EXPECT_EQ(f.trace_file_events, kept);
  for (const auto& e : back.events) EXPECT_TRUE(gz.trace_filter.keeps(e.rank, e.layer)) << e.task;
  EXPECT_EQ(back.scenario, r.trace.scenario);
  std::remove(so.trace_path.c_str());
  std::remove(gz.trace_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Scenarios, StreamedReport, ::testing::ValuesIn(scenario_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           std::string n = p.param;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

// The peers GraphEventView keeps, and those it computes on demand, equal those of make_event for
// every task of every example graph (its SendRecv table replaces a scan of the op's transfers per
// member).
TEST(GraphEventView, PeersEqualThoseOfMakeEvent) {
  for (const std::string& name : scenario_names()) {
    const Scenario s = load(name);
    const RankLayout layout = RankLayout::from_scenario(s);
    const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
    const std::vector<TaskTimes> times(g.size());
    const GraphEventView v(g, times);
    const GraphEventView on_demand(g, times, GraphEventView::PeerStorage::OnDemand);
    std::size_t with_peers = 0;
    for (const Task& t : g.tasks()) {
      const TaskId id = g.id_of(t);
      const TraceEvent e = make_event(g, t, 0, 0);
      const auto p = v.peers(id);
      ASSERT_EQ(std::vector<std::int32_t>(p.begin(), p.end()), e.peers) << name << " task " << id;
      const auto q = on_demand.peers(id);
      ASSERT_EQ(std::vector<std::int32_t>(q.begin(), q.end()), e.peers) << name << " task " << id << " (on demand)";
      EXPECT_EQ(v.name(id), e.name);
      std::string appended = "x";
      v.append_name(id, appended);
      EXPECT_EQ(appended, "x" + e.name);
      with_peers += p.empty() ? 0 : 1;
    }
    EXPECT_GT(with_peers, 0u) << name;
  }
}

// Names equal exactly when name keys are equal (the critical path pairs call members by it).
TEST(GraphEventView, NameKeysFollowNames) {
  const Scenario s = load("llama3-8b-128k-dgx-h100-mixed");
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  const std::vector<TaskTimes> times(g.size());
  const GraphEventView v(g, times);
  std::map<std::uint64_t, std::string> name_of_key;
  std::map<std::string, std::uint64_t> key_of_name;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto [k, new_key] = name_of_key.emplace(v.name_key(i), v.name(i));
    EXPECT_EQ(k->second, v.name(i));
    const auto [n, new_name] = key_of_name.emplace(v.name(i), v.name_key(i));
    EXPECT_EQ(n->second, v.name_key(i));
  }
  EXPECT_GT(name_of_key.size(), 10u);
}

TEST(TaskTimesSink, RefusesAnIncompleteRun) {
  TaskGraph g;
  Task t;
  g.add_task(t, "a");
  g.add_task(t, "b");
  TaskTimesSink sink(g.size());
  sink.record_task(g, g.task(1), 0, 1);
  EXPECT_EQ(sink.recorded(), 1u);
  try {
    sink.require_complete("demo");
    FAIL() << "no error for a task never recorded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("first: task 0"), std::string::npos) << e.what();
  }
  sink.record_task(g, g.task(0), 0, 2);
  EXPECT_NO_THROW(sink.require_complete("demo"));
  EXPECT_EQ(sink.times()[0].end_s, 2.0);
}

TEST(TraceOutput, UnwritableFileIsNamed) {
  try {
    open_trace_output("/nonexistent-dir/trace.json.gz");
    FAIL() << "no error";
  } catch (const TraceWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write /nonexistent-dir/trace.json.gz"), std::string::npos) << e.what();
  }
  // A full disk fails on a write or at the latest on close.
  auto out = open_trace_output("/dev/full");
  EXPECT_THROW(
      {
        out->write(std::string(1 << 16, 'x'));
        out->close();
      },
      TraceWriteError);
}

}  // namespace
}  // namespace hcpsim
