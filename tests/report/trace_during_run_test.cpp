// The trace file written during the run (engine/app/trace_during_run.h): the published prefix of
// task times (TaskProgress, TaskTimesSink), a reader that waits for it on another thread, and runs
// that fail or record their tasks out of order while a trace file is being written.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <unistd.h>

#include "engine/analytic/analytic_backend.h"
#include "engine/app/simulate.h"
#include "engine/scenario/loader.h"
#include "engine/schedule/build.h"
#include "engine/trace/chrome_trace_writer.h"
#include "engine/trace/graph_event_view.h"
#include "engine/trace/streamed_event_view.h"
#include "engine/trace/task_progress.h"
#include "engine/trace/task_times.h"
#include "engine/trace/trace_output.h"
#include "tests/support/file_bytes.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

Scenario example(const std::string& name) {
  Scenario s = load_scenario_file((fs::path(HCPSIM_SOURCE_DIR) / "scenarios" / (name + ".yaml")).string());
  s.simulation.backend = "analytic";
  return s;
}

std::string temp_path(const std::string& suffix) {
  return (fs::temp_directory_path() / ("hcpsim_during_run_" + std::to_string(::getpid()) + suffix)).string();
}

std::string slurp(const std::string& path) { return test::file_bytes(path); }

TaskGraph chain_of(int tasks) {
  TaskGraph g;
  for (int i = 0; i < tasks; ++i) {
    Task t;
    t.rank = i % 2;
    g.add_task(t, "t");
  }
  return g;
}

TEST(TaskProgress, AReaderWaitsForThePrefixItNeeds) {
  TaskProgress p;
  std::atomic<bool> saw{false};
  std::thread reader([&] {
    EXPECT_TRUE(p.wait_started());
    EXPECT_TRUE(p.wait_for(3));
    saw = true;
  });
  p.start();
  p.publish(2);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(saw.load()) << "the reader went on before task 2 was final";
  p.publish(3);
  reader.join();
  EXPECT_TRUE(saw.load());
  EXPECT_EQ(p.ready(), 3u);
}

TEST(TaskProgress, AbandoningReleasesEveryWaiter) {
  TaskProgress p;
  bool started = true, got = true;
  std::thread reader([&] {
    started = p.wait_started();
    got = p.wait_for(1);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  p.abandon();
  reader.join();
  EXPECT_FALSE(started);
  EXPECT_FALSE(got);
  // A prefix published before the run failed is still there for readers.
  TaskProgress q;
  q.publish(5);
  q.abandon();
  EXPECT_TRUE(q.wait_for(5));
  EXPECT_FALSE(q.wait_for(6));
}

TEST(TaskTimesSink, PublishesTheRecordedPrefix) {
  const TaskGraph g = chain_of(3);
  TaskTimesSink sink(g.size());
  TaskProgress p;
  sink.publish_to(&p);
  sink.record_task(g, g.task(2), 0, 3);
  EXPECT_TRUE(p.wait_started()) << "the first record starts the run";
  EXPECT_EQ(p.ready(), 0u);
  sink.record_task(g, g.task(0), 0, 1);
  sink.record_task(g, g.task(1), 1, 2);
  EXPECT_EQ(p.ready(), 3u) << "the whole run is published when its last task arrives";
  try {
    sink.record_task(g, g.task(1), 5, 6);
    FAIL() << "a task handed to a reader was recorded again";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("task 1 a second time"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sink.times()[1].end_s, 2.0);
}

TEST(TaskTimesSink, PublishesInSteps) {
  const auto n = static_cast<int>(3 * TaskTimesSink::kPublishEvery_tasks);
  const TaskGraph g = chain_of(n);
  TaskTimesSink sink(g.size());
  TaskProgress p;
  sink.publish_to(&p);
  for (int i = 0; i < static_cast<int>(TaskTimesSink::kPublishEvery_tasks) + 5; ++i)
    sink.record_task(g, g.task(static_cast<TaskId>(i)), 0, i);
  EXPECT_EQ(p.ready(), TaskTimesSink::kPublishEvery_tasks);
}

// A reader formats the events while another thread records them: the file equals the one written
// after the run.
TEST(StreamedEventView, AReaderOnAnotherThreadWritesTheSameFile) {
  const Scenario s = example("llama3-8b-128k-dgx-h100-mixed");
  AnalyticBackend backend;
  SimulateOptions plain;
  plain.keep_events = true;
  const SimulationResult r = simulate_scenario(s, backend, plain);
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  ASSERT_EQ(g.size(), r.trace.events.size());
  std::ostringstream expected;
  write_chrome_trace(r.trace, expected);

  TaskTimesSink sink(g.size());
  TaskProgress progress;
  sink.publish_to(&progress);
  const std::string path = temp_path(".json");
  std::size_t written = 0;
  std::thread reader([&] {
    ASSERT_TRUE(progress.wait_started());
    const GraphEventView view(g, sink.times(), GraphEventView::PeerStorage::OnDemand);
    const StreamedEventView streamed(view, progress);
    auto out = open_trace_output(path);
    written = write_chrome_trace(streamed, r.trace, TraceFilter{}, *out);
    out->close();
  });
  // Recorded from the last task to the first: nothing is final before the end.
  for (std::size_t i = g.size(); i-- > 0;) {
    const TraceEvent& e = r.trace.events[i];
    sink.record_task(g, g.task(static_cast<TaskId>(i)), e.start_s, e.end_s);
  }
  reader.join();
  EXPECT_EQ(written, g.size());
  EXPECT_EQ(slurp(path), expected.str());
  std::remove(path.c_str());
}

// A backend that records some tasks, then fails.
class FailingBackend : public Backend {
 public:
  explicit FailingBackend(std::size_t record) : record_(record) {}
  std::string name() const override { return "failing"; }
  BackendCapabilities capabilities() const override { return {}; }
  void run(const TaskGraph& g, const RunContext&, TraceSink& sink) override {
    for (std::size_t i = 0; i < std::min(record_, g.size()); ++i) sink.record_task(g, g.task(static_cast<TaskId>(i)), 0, 1);
    throw std::runtime_error("failing backend stopped");
  }

 private:
  std::size_t record_;
};

TEST(TraceDuringRun, AFailedRunEndsTheWriterAndKeepsItsError) {
  const Scenario s = example("llama3-8b-128k-dgx-h100-mixed");
  for (const std::size_t recorded : {std::size_t{0}, std::size_t{1}, std::size_t{40}}) {
    for (const char* suffix : {".json", ".json.gz"}) {
      FailingBackend backend(recorded);
      SimulateOptions so;
      so.keep_events = false;
      so.trace_path = temp_path(suffix);
      try {
        simulate_scenario(s, backend, so);
        FAIL() << "no error from a failed run";
      } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "failing backend stopped") << recorded << " tasks recorded, " << suffix;
      }
      std::remove(so.trace_path.c_str());
    }
  }
}

}  // namespace
}  // namespace hcpsim
