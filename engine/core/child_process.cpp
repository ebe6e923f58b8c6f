#include "engine/core/child_process.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace hcpsim {
namespace {

[[noreturn]] void fail(const std::string& what, const char* call) {
  throw std::runtime_error(what + ": " + call + " failed: " + std::strerror(errno));
}

}  // namespace

ChildProcess fork_child(const std::function<int(int)>& body, bool capture_output,
                        const std::vector<int>& close_in_child, const std::string& what) {
  int result[2];
  int output[2] = {-1, -1};
  if (::pipe(result) != 0) fail(what, "pipe");
  if (capture_output && ::pipe(output) != 0) {
    ::close(result[0]);
    ::close(result[1]);
    fail(what, "pipe");
  }
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {result[0], result[1], output[0], output[1]})
      if (fd >= 0) ::close(fd);
    fail(what, "fork");
  }
  if (pid == 0) {
    ::close(result[0]);
    for (int fd : close_in_child) ::close(fd);
    if (capture_output) {
      ::close(output[0]);
      ::dup2(output[1], STDERR_FILENO);
      ::dup2(output[1], STDOUT_FILENO);
      ::close(output[1]);
    }
    const int code = body(result[1]);
    ::close(result[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(code);
  }
  ::close(result[1]);
  if (capture_output) ::close(output[1]);
  return ChildProcess{pid, result[0], output[0]};
}

bool write_all(int fd, const char* data, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

std::vector<bool> poll_readable(const std::vector<int>& fds, int timeout_ms, const std::string& what) {
  std::vector<pollfd> p;
  p.reserve(fds.size());
  for (int fd : fds) p.push_back({fd, POLLIN, 0});
  std::vector<bool> ready(fds.size(), false);
  if (::poll(p.data(), p.size(), timeout_ms) < 0) {
    if (errno == EINTR) return ready;
    fail(what, "poll");
  }
  for (std::size_t i = 0; i < p.size(); ++i) ready[i] = fds[i] >= 0 && (p[i].revents & (POLLIN | POLLHUP | POLLERR));
  return ready;
}

bool read_available(int fd, std::string& into) {
  char chunk[1 << 16];
  const ssize_t r = ::read(fd, chunk, sizeof chunk);
  if (r > 0) {
    into.append(chunk, static_cast<std::size_t>(r));
    return true;
  }
  return r < 0 && errno == EINTR;
}

int reap_child(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string describe_abnormal_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) != 0) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace hcpsim
