#include "sim/child_channel.h"

#include "engine/core/process_memory.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hcpsim::sim {

namespace {

enum Tag : char { kEvent = 'E', kProgress = 'P', kError = 'X', kInvalid = 'I', kDone = 'D', kText = 'T' };
constexpr std::size_t kFlushAt = 1 << 16;

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Parses records from a growing byte buffer; returns bytes consumed.
class RecordReader {
 public:
  RecordReader(const ChildHandlers& h, ChildOutcome& o) : h_(h), o_(o) {}

  std::size_t parse(const char* p, std::size_t n) {
    std::size_t used = 0;
    while (used < n) {
      const std::size_t got = one(p + used, n - used);
      if (got == 0) break;
      used += got;
    }
    return used;
  }

 private:
  template <class T>
  static T get(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  std::size_t one(const char* p, std::size_t n) {
    switch (p[0]) {
      case kEvent: {
        constexpr std::size_t len = 1 + 4 + 8 + 8;
        if (n < len) return 0;
        if (h_.on_event) h_.on_event(get<std::uint32_t>(p + 1), get<double>(p + 5), get<double>(p + 13));
        return len;
      }
      case kProgress: {
        constexpr std::size_t len = 1 + 8 + 8 + 8;
        if (n < len) return 0;
        if (h_.on_progress) h_.on_progress(get<std::uint64_t>(p + 1), get<std::uint64_t>(p + 9), get<double>(p + 17));
        return len;
      }
      case kDone: {
        constexpr std::size_t len = 1 + 8 + 8 + 8;
        if (n < len) return 0;
        o_.finished = true;
        o_.completed = get<std::uint64_t>(p + 1);
        o_.makespan_s = get<double>(p + 9);
        o_.flows = get<std::uint64_t>(p + 17);
        return len;
      }
      case kInvalid:
      case kError:
      case kText: {
        if (n < 5) return 0;
        const auto sz = get<std::uint32_t>(p + 1);
        if (n < 5 + sz) return 0;
        std::string s(p + 5, sz);
        if (p[0] == kText) {
          o_.text += s;
        } else if (o_.error.empty()) {
          o_.error = s;
          o_.invalid_input = p[0] == kInvalid;
        }
        return 5 + sz;
      }
      default:
        throw std::runtime_error(std::string("simgrid child sent a corrupt record (tag ") +
                                 std::to_string(static_cast<int>(p[0])) + ")");
    }
  }

  const ChildHandlers& h_;
  ChildOutcome& o_;
};

void keep_tail(std::string& tail, const char* p, std::size_t n) {
  tail.append(p, n);
  constexpr std::size_t keep = 2000;
  if (tail.size() > 2 * keep) tail.erase(0, tail.size() - keep);
}

}  // namespace

void RecordWriter::put(const void* p, std::size_t n) {
  const auto* c = static_cast<const char*>(p);
  buf_.insert(buf_.end(), c, c + n);
  if (buf_.size() >= kFlushAt) flush();
}

void RecordWriter::event(std::uint32_t task, double start_s, double end_s) {
  const char t = kEvent;
  put(&t, 1);
  put(&task, 4);
  put(&start_s, 8);
  put(&end_s, 8);
}

void RecordWriter::progress(std::uint64_t done_count, std::uint64_t total, double sim_time_s) {
  const char t = kProgress;
  put(&t, 1);
  put(&done_count, 8);
  put(&total, 8);
  put(&sim_time_s, 8);
  flush();
}

void RecordWriter::error(const std::string& message, bool invalid_input) {
  const char t = invalid_input ? kInvalid : kError;
  const auto n = static_cast<std::uint32_t>(message.size());
  put(&t, 1);
  put(&n, 4);
  put(message.data(), n);
  flush();
}

void RecordWriter::text(const std::string& s) {
  const char t = kText;
  const auto n = static_cast<std::uint32_t>(s.size());
  put(&t, 1);
  put(&n, 4);
  put(s.data(), n);
}

void RecordWriter::done(std::uint64_t completed, double makespan_s, std::uint64_t flows) {
  const char t = kDone;
  put(&t, 1);
  put(&completed, 8);
  put(&makespan_s, 8);
  put(&flows, 8);
  flush();
}

void RecordWriter::flush() {
  if (buf_.empty() || fd_ < 0) return;
  if (!write_all(fd_, buf_.data(), buf_.size())) fd_ = -1;   // parent gone: drop the rest
  buf_.clear();
}

ChildOutcome run_in_child(const std::function<void(RecordWriter&)>& body, const ChildHandlers& handlers) {
  int data[2];
  int err[2];
  if (::pipe(data) != 0) throw std::runtime_error(std::string("simgrid backend: pipe failed: ") + std::strerror(errno));
  if (::pipe(err) != 0) {
    ::close(data[0]);
    ::close(data[1]);
    throw std::runtime_error(std::string("simgrid backend: pipe failed: ") + std::strerror(errno));
  }
  std::fflush(stdout);
  std::fflush(stderr);
  release_free_memory();   // the child should not inherit freed pages
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {data[0], data[1], err[0], err[1]}) ::close(fd);
    throw std::runtime_error(std::string("simgrid backend: fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(data[0]);
    ::close(err[0]);
    ::dup2(err[1], STDERR_FILENO);
    ::dup2(err[1], STDOUT_FILENO);   // SimGrid's own messages must not mix with our stdout
    ::close(err[1]);
    {
      RecordWriter w(data[1]);
      try {
        body(w);
      } catch (const std::invalid_argument& e) {
        w.error(e.what(), true);
      } catch (const std::exception& e) {
        w.error(e.what());
      } catch (...) {
        w.error("unknown exception in the simgrid child");
      }
      w.flush();
    }
    ::close(data[1]);
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(0);
  }
  ::close(data[1]);
  ::close(err[1]);

  ChildOutcome out;
  RecordReader reader(handlers, out);
  std::vector<char> pending;
  char chunk[1 << 16];
  bool data_open = true;
  bool err_open = true;
  try {
    while (data_open || err_open) {
      pollfd fds[2] = {{data_open ? data[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        throw std::runtime_error(std::string("simgrid backend: poll failed: ") + std::strerror(errno));
      }
      if (data_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t r = ::read(data[0], chunk, sizeof chunk);
        if (r > 0) {
          pending.insert(pending.end(), chunk, chunk + r);
          const std::size_t used = reader.parse(pending.data(), pending.size());
          pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(used));
        } else if (r == 0 || errno != EINTR) {
          data_open = false;
        }
      }
      if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
        const ssize_t r = ::read(err[0], chunk, sizeof chunk);
        if (r > 0) keep_tail(out.child_stderr_tail, chunk, static_cast<std::size_t>(r));
        else if (r == 0 || errno != EINTR) err_open = false;
      }
    }
  } catch (...) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    ::close(data[0]);
    ::close(err[0]);
    throw;
  }
  ::close(data[0]);
  ::close(err[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!pending.empty() && out.error.empty()) out.error = "simgrid child output ended inside a record";
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    out.error = "simgrid child process died with signal " + std::to_string(sig) + " (" + strsignal(sig) + ")" +
                (out.error.empty() ? std::string() : "; it had reported: " + out.error);
    out.finished = false;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    out.error = "simgrid child process exited with status " + std::to_string(WEXITSTATUS(status)) +
                (out.error.empty() ? std::string() : ": " + out.error);
    out.finished = false;
  }
  return out;
}

}  // namespace hcpsim::sim
