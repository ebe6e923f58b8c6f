#include "engine/trace/trace_output.h"
#include "engine/trace/parallel_gzip_output.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace hcpsim {
namespace {

// "cannot write PATH: reason" (errno's text when there is one).
std::string system_error(const std::string& path, const char* what) {
  return std::string(what) + " " + path + (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string());
}

class PlainOutput : public TraceOutput {
 public:
  explicit PlainOutput(const std::string& path) : path_(path) {
    errno = 0;
    f_ = std::fopen(path.c_str(), "wb");
    if (f_ == nullptr) throw TraceWriteError(system_error(path, "cannot write"));
  }
  ~PlainOutput() override {
    if (f_ != nullptr) std::fclose(f_);
  }
  void write(std::string_view bytes) override {
    errno = 0;
    if (std::fwrite(bytes.data(), 1, bytes.size(), f_) != bytes.size())
      throw TraceWriteError(system_error(path_, "cannot write"));
  }
  void close() override {
    errno = 0;
    const bool ok = std::fflush(f_) == 0 && std::ferror(f_) == 0;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed) throw TraceWriteError(system_error(path_, "cannot write"));
  }

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
};

// Hands the bytes to a second thread, which writes them while the caller
// formats the next ones. At most kQueued chunks wait; an error of the writing thread is thrown by
// the next write() or by close(). The thread starts with the first write, so a process that forks
// between opening and writing (the simgrid backend) forks with one thread.
class BackgroundOutput : public TraceOutput {
 public:
  explicit BackgroundOutput(std::unique_ptr<TraceOutput> inner) : inner_(std::move(inner)) {}
  ~BackgroundOutput() override { stop(); }
  void write(std::string_view bytes) override { write_owned(std::string(bytes)); }
  void write_owned(std::string&& bytes) override {
    if (!worker_.joinable()) worker_ = std::thread([this] { drain(); });
    std::unique_lock lock(mutex_);
    space_.wait(lock, [this] { return queue_.size() < kQueued || error_; });
    if (error_) std::rethrow_exception(error_);
    queue_.push_back(std::move(bytes));
    ready_.notify_one();
  }
  void close() override {
    stop();
    if (error_) std::rethrow_exception(error_);
    inner_->close();
  }

 private:
  static constexpr std::size_t kQueued = 4;
  void drain() {
    while (true) {
      std::string chunk;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty() || closing_; });
        if (queue_.empty()) return;
        chunk = std::move(queue_.front());
        queue_.pop_front();
        space_.notify_one();
        if (error_) continue;   // after an error the rest is dropped
      }
      try {
        inner_->write(chunk);
      } catch (...) {
        std::lock_guard lock(mutex_);
        error_ = std::current_exception();
        space_.notify_all();
      }
    }
  }
  void stop() {
    if (!worker_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_one();
    worker_.join();
  }
  std::unique_ptr<TraceOutput> inner_;
  std::thread worker_;
  std::mutex mutex_;
  std::condition_variable ready_, space_;
  std::deque<std::string> queue_;
  bool closing_ = false;
  std::exception_ptr error_;
};

}  // namespace

bool is_gzip_path(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

std::unique_ptr<TraceOutput> open_trace_output(const std::string& path) {
  // gzip: ISA-L's igzip at level 1 (a trace is repetitive text; level 1 already shrinks it about
  // fourteenfold) on every core, as compressing is what a gzip trace costs. zlib reads it back.
  if (is_gzip_path(path))
    return open_parallel_gzip_output(path, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
  return std::make_unique<BackgroundOutput>(std::make_unique<PlainOutput>(path));
}

std::string read_trace_bytes(const std::string& path) {
  // gzread passes a file that is not gzip through unchanged, so one reader serves both.
  errno = 0;
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error(path + ": cannot open trace file");
  std::string out;
  char buf[1 << 16];
  while (true) {
    const int n = gzread(f, buf, sizeof buf);
    if (n < 0) {
      int code = 0;
      const std::string msg = gzerror(f, &code);
      gzclose(f);
      throw std::runtime_error(path + ": cannot read trace file: " + msg);
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  gzclose(f);
  return out;
}

}  // namespace hcpsim
