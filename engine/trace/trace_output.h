#pragma once
// TraceOutput: where a trace file's bytes go. A file whose name ends in ".gz" is written
// gzip-compressed (zlib), any other as plain text; either is written as the bytes come, never held
// whole in memory.
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hcpsim {

// A trace file could not be written (its message names the file and the reason).
class TraceWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TraceOutput {
 public:
  virtual ~TraceOutput() = default;
  // Throws TraceWriteError naming the file when the bytes cannot be written.
  virtual void write(std::string_view bytes) = 0;
  // As write(), taking the bytes: an output that keeps them for a while (a writing or compressing
  // thread) moves them instead of copying. `bytes` is left in a valid but unspecified state.
  virtual void write_owned(std::string&& bytes) { write(bytes); }
  // Flushes and closes; throws TraceWriteError naming the file when that fails (a full disk
  // often shows only here). Must be called before the output is destroyed for the file to count.
  virtual void close() = 0;
};

// True when `path` names a gzip file (ends in ".gz").
bool is_gzip_path(const std::string& path);

// Opens `path` for writing (gzip when is_gzip_path). The bytes are written by a second thread, or
// compressed by one thread per core (engine/trace/parallel_gzip_output.h), while the caller produces
// the next ones. Throws TraceWriteError "cannot write PATH:
// reason"; a later write error is thrown by a following write() or by close().
std::unique_ptr<TraceOutput> open_trace_output(const std::string& path);

// Reads a whole trace file, plain or gzip (recognised by its first two bytes, whatever its name).
// Throws std::runtime_error naming the file.
std::string read_trace_bytes(const std::string& path);

}  // namespace hcpsim
