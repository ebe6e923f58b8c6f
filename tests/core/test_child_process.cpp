// The one fork/pipe/poll helper (engine/core/child_process.h) and the string splitter.
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <string>

#include "engine/core/child_process.h"
#include "engine/core/text_split.h"

namespace hcpsim {
namespace {

std::string read_all(int fd) {
  std::string out;
  while (true) {
    const auto ready = poll_readable({fd}, 5000, "test");
    EXPECT_TRUE(ready[0]) << "no data within 5 s";
    if (!ready[0] || !read_available(fd, out)) break;
  }
  ::close(fd);
  return out;
}

TEST(ChildProcess, ResultAndOutputComeBackSeparately) {
  const ChildProcess c = fork_child(
      [](int fd) {
        const std::string r = "result";
        write_all(fd, r.data(), r.size());
        std::printf("chatter");
        return 0;
      },
      true, {}, "test");
  EXPECT_EQ(read_all(c.result_fd), "result");
  EXPECT_EQ(read_all(c.output_fd), "chatter");
  EXPECT_EQ(describe_abnormal_exit(reap_child(c.pid)), "");
}

TEST(ChildProcess, AbnormalEndsAreDescribed) {
  const ChildProcess exits = fork_child([](int) { return 3; }, false, {}, "test");
  EXPECT_EQ(read_all(exits.result_fd), "");
  EXPECT_EQ(describe_abnormal_exit(reap_child(exits.pid)), "exited with status 3");
  const ChildProcess killed = fork_child([](int) {
    ::raise(SIGKILL);
    return 0;
  }, false, {}, "test");
  read_all(killed.result_fd);
  EXPECT_EQ(describe_abnormal_exit(reap_child(killed.pid)).rfind("killed by signal 9", 0), 0u);
}

TEST(TextSplit, KeepsEmptyPieces) {
  EXPECT_EQ(split_at("tp-cp-ep-dp-pp", '-'), (std::vector<std::string>{"tp", "cp", "ep", "dp", "pp"}));
  EXPECT_EQ(split_at("a..b", '.'), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_TRUE(split_at("", '.').empty());
}

}  // namespace
}  // namespace hcpsim
