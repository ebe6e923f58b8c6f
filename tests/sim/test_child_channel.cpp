// The fork + pipe channel: records arrive in order, and a child that crashes or exits abnormally
// becomes a clear error in the parent instead of a hang or a short result.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include <unistd.h>

#include "sim/child_channel.h"

namespace hcpsim::sim {
namespace {

TEST(ChildChannel, StreamsEventsProgressTextAndDone) {
  std::vector<std::uint32_t> tasks;
  std::uint64_t progress_done = 0;
  ChildHandlers h;
  h.on_event = [&](std::uint32_t t, double s, double e) {
    EXPECT_DOUBLE_EQ(e - s, 0.5);
    tasks.push_back(t);
  };
  h.on_progress = [&](std::uint64_t d, std::uint64_t, double) { progress_done = d; };
  const ChildOutcome out = run_in_child(
      [](RecordWriter& w) {
        for (std::uint32_t i = 0; i < 100000; ++i) w.event(i, i, i + 0.5);   // more than a pipe buffer
        w.progress(7, 10, 1.0);
        w.text("hello");
        w.done(100000, 2.5);
      },
      h);
  EXPECT_TRUE(out.error.empty()) << out.error;
  ASSERT_TRUE(out.finished);
  EXPECT_EQ(out.completed, 100000u);
  EXPECT_DOUBLE_EQ(out.makespan_s, 2.5);
  EXPECT_EQ(out.text, "hello");
  EXPECT_EQ(progress_done, 7u);
  ASSERT_EQ(tasks.size(), 100000u);
  for (std::uint32_t i = 0; i < tasks.size(); ++i) ASSERT_EQ(tasks[i], i);
}

TEST(ChildChannel, AbortInTheChildIsReportedWithItsSignal) {
  const ChildOutcome out = run_in_child(
      [](RecordWriter& w) {
        w.event(1, 0, 1);
        w.flush();
        std::abort();   // what an xbt_assert inside SimGrid does
      },
      ChildHandlers{});
  EXPECT_FALSE(out.finished);
  EXPECT_NE(out.error.find("signal 6"), std::string::npos) << out.error;
}

TEST(ChildChannel, ExceptionInTheChildBecomesAnErrorRecord) {
  const ChildOutcome out =
      run_in_child([](RecordWriter&) { throw std::invalid_argument("bad cluster.faults[0].nic"); }, ChildHandlers{});
  EXPECT_FALSE(out.finished);
  EXPECT_EQ(out.error, "bad cluster.faults[0].nic");
}

TEST(ChildChannel, NonZeroExitIsAnError) {
  const ChildOutcome out = run_in_child(
      [](RecordWriter& w) {
        w.done(1, 1.0);
        w.flush();
        ::_exit(3);
      },
      ChildHandlers{});
  EXPECT_FALSE(out.finished);
  EXPECT_NE(out.error.find("status 3"), std::string::npos) << out.error;
}

}  // namespace
}  // namespace hcpsim::sim
