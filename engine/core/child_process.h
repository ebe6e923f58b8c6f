#pragma once
// Forked children that send their results back through pipes: the one fork/pipe/poll helper of the
// sweep runner (one worker per point) and the SimGrid backend (one simulation per process).
#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace hcpsim {

struct ChildProcess {
  pid_t pid = -1;
  int result_fd = -1;   // read end of the pipe the child writes its results to
  int output_fd = -1;   // read end of the child's stdout + stderr when captured, else -1
};

// Flushes stdio and forks. The child closes `close_in_child` (the parent's other pipe ends), runs
// body(write end of the result pipe) and _exit()s with its return value. With `capture_output` the
// child's stdout and stderr go to output_fd. Throws std::runtime_error naming `what` when pipe() or
// fork() fail.
ChildProcess fork_child(const std::function<int(int result_fd)>& body, bool capture_output,
                        const std::vector<int>& close_in_child, const std::string& what);

// Writes all of `n` bytes, retrying on EINTR; false when the reader is gone.
bool write_all(int fd, const char* data, std::size_t n);

// Waits up to timeout_ms (-1: without limit) until some of `fds` (-1 entries are skipped) can be read
// or are closed; returns one flag per fd. An interrupted wait returns all false. Throws
// std::runtime_error naming `what` when poll() fails.
std::vector<bool> poll_readable(const std::vector<int>& fds, int timeout_ms, const std::string& what);

// Reads what one read() returns from a readable fd and appends it to `into`; false at end of file
// (or on an error other than EINTR).
bool read_available(int fd, std::string& into);

// Waits for the child (retrying on EINTR) and returns its wait status.
int reap_child(pid_t pid);

// "killed by signal 9 (Killed)" or "exited with status 3" for an abnormal wait status; "" for exit 0.
std::string describe_abnormal_exit(int status);

}  // namespace hcpsim
