#pragma once
// One SimGrid simulation per process: run a function in a forked child that streams binary records
// (trace events, progress, an error, a final summary, text) back through a pipe to the parent.
// SimGrid's Engine is a process-wide singleton that cannot be reset, which is why every simulation
// gets its own child; this also turns SimGrid's abort()s into a clear error in the parent.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace hcpsim::sim {

// Child side: buffered writer of records to the pipe.
class RecordWriter {
 public:
  explicit RecordWriter(int fd) : fd_(fd) {}
  ~RecordWriter() { flush(); }
  void event(std::uint32_t task, double start_s, double end_s);
  void progress(std::uint64_t done, std::uint64_t total, double sim_time_s);
  // `invalid_input`: the error is bad input (the parent rethrows std::invalid_argument).
  void error(const std::string& message, bool invalid_input = false);
  void done(std::uint64_t completed, double makespan_s, std::uint64_t flows = 0);
  void text(const std::string& s);
  void flush();   // writes the buffer; returns silently when the parent is gone

 private:
  void put(const void* p, std::size_t n);
  void put_string(char tag, const std::string& s);   // tag, 32-bit length, bytes
  template <class... Field>
  void put_fields(char tag, const Field&... fields) {   // tag, then each field's bytes, one append
    constexpr std::size_t n = 1 + (sizeof(Field) + ...);
    char rec[n];
    rec[0] = tag;
    std::size_t at = 1;
    ((std::memcpy(rec + at, &fields, sizeof fields), at += sizeof fields), ...);
    put(rec, n);
  }
  int fd_;
  std::vector<char> buf_;
};

// Parent side: what the child sent.
struct ChildHandlers {
  std::function<void(std::uint32_t task, double start_s, double end_s)> on_event;
  std::function<void(std::uint64_t done, std::uint64_t total, double sim_time_s)> on_progress;
};

struct ChildOutcome {
  bool finished = false;          // a `done` record arrived
  std::uint64_t completed = 0;
  double makespan_s = 0;
  std::uint64_t flows = 0;        // point-to-point flows the child started
  std::string error;              // first error record, or a description of an abnormal exit
  bool invalid_input = false;     // that first error was reported as bad input
  std::string text;               // concatenated text records
  std::string child_stderr_tail;  // last lines the child wrote to stderr (SimGrid messages)
};

// Forks; the child runs `body` (exceptions become error records; std::invalid_argument ones are
// marked as bad input), flushes and _exit()s. The parent
// dispatches records until EOF, reaps the child and reports a crash (signal or non-zero status) in
// `error`. Throws std::runtime_error only when fork/pipe fail, or rethrows an exception from a
// handler after killing the child.
ChildOutcome run_in_child(const std::function<void(RecordWriter&)>& body, const ChildHandlers& handlers);

}  // namespace hcpsim::sim
