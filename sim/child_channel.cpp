#include "sim/child_channel.h"

#include "engine/core/child_process.h"
#include "engine/core/process_memory.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <utility>

#include <unistd.h>

namespace hcpsim::sim {

namespace {

enum Tag : char { kEvent = 'E', kProgress = 'P', kError = 'X', kInvalid = 'I', kDone = 'D', kText = 'T' };
constexpr std::size_t kFlushAt = 1 << 16;

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
  put_fields(kEvent, task, start_s, end_s);
}

void RecordWriter::progress(std::uint64_t done_count, std::uint64_t total, double sim_time_s) {
  put_fields(kProgress, done_count, total, sim_time_s);
  flush();
}

void RecordWriter::error(const std::string& message, bool invalid_input) {
  put_string(invalid_input ? kInvalid : kError, message);
  flush();
}

void RecordWriter::text(const std::string& s) { put_string(kText, s); }

void RecordWriter::put_string(char tag, const std::string& s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  put(&tag, 1);
  put(&n, 4);
  put(s.data(), n);
}

void RecordWriter::done(std::uint64_t completed, double makespan_s, std::uint64_t flows) {
  put_fields(kDone, completed, makespan_s, flows);
  flush();
}

void RecordWriter::flush() {
  if (buf_.empty() || fd_ < 0) return;
  if (!write_all(fd_, buf_.data(), buf_.size())) fd_ = -1;   // parent gone: drop the rest
  buf_.clear();
}

ChildOutcome run_in_child(const std::function<void(RecordWriter&)>& body, const ChildHandlers& handlers) {
  release_free_memory();   // the child should not inherit freed pages
  const ChildProcess child = fork_child(
      [&](int fd) {
        RecordWriter w(fd);
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
        return 0;
      },
      /*capture_output=*/true, {}, "simgrid backend");   // SimGrid's own messages must not mix with our stdout

  ChildOutcome out;
  RecordReader reader(handlers, out);
  std::string pending, output;
  int data_fd = child.result_fd, err_fd = child.output_fd;
  try {
    while (data_fd >= 0 || err_fd >= 0) {
      const std::vector<bool> ready = poll_readable({data_fd, err_fd}, -1, "simgrid backend");
      if (ready[0]) {
        if (read_available(data_fd, pending)) {
          const std::size_t used = reader.parse(pending.data(), pending.size());
          pending.erase(0, used);
        } else {
          ::close(std::exchange(data_fd, -1));
        }
      }
      if (ready[1]) {
        output.clear();
        if (read_available(err_fd, output)) keep_tail(out.child_stderr_tail, output.data(), output.size());
        else ::close(std::exchange(err_fd, -1));
      }
    }
  } catch (...) {
    ::kill(child.pid, SIGKILL);
    reap_child(child.pid);
    for (int fd : {data_fd, err_fd})
      if (fd >= 0) ::close(fd);
    throw;
  }
  const int status = reap_child(child.pid);
  if (!pending.empty() && out.error.empty()) out.error = "simgrid child output ended inside a record";
  if (const std::string why = describe_abnormal_exit(status); !why.empty()) {
    out.error = "simgrid child process " + why + (out.error.empty() ? std::string() : "; it had reported: " + out.error);
    out.finished = false;
  }
  return out;
}

}  // namespace hcpsim::sim
