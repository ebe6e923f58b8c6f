#include "engine/trace/trace_output.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

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

// zlib's fastest level: a trace is repetitive text, and level 1 already shrinks it about tenfold
// at several times the speed of the default level.
class GzipOutput : public TraceOutput {
 public:
  explicit GzipOutput(const std::string& path) : path_(path) {
    errno = 0;
    f_ = gzopen(path.c_str(), "wb1");
    if (f_ == nullptr) throw TraceWriteError(system_error(path, "cannot write"));
    gzbuffer(f_, 1 << 20);
  }
  ~GzipOutput() override {
    if (f_ != nullptr) gzclose(f_);
  }
  void write(std::string_view bytes) override {
    while (!bytes.empty()) {
      const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(bytes.size(), 1u << 30));
      if (gzwrite(f_, bytes.data(), chunk) != static_cast<int>(chunk)) fail();
      bytes.remove_prefix(chunk);
    }
  }
  void close() override {
    errno = 0;
    const int rc = gzclose(f_);
    f_ = nullptr;
    if (rc != Z_OK) throw TraceWriteError(system_error(path_, "cannot write") + " (gzip)");
  }

 private:
  [[noreturn]] void fail() {
    int code = 0;
    const char* msg = gzerror(f_, &code);
    throw TraceWriteError("cannot write " + path_ + " (gzip): " +
                             (code == Z_ERRNO ? std::string(std::strerror(errno)) : std::string(msg)));
  }
  std::string path_;
  gzFile f_ = nullptr;
};

}  // namespace

bool is_gzip_path(const std::string& path) { return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

std::unique_ptr<TraceOutput> open_trace_output(const std::string& path) {
  if (is_gzip_path(path)) return std::make_unique<GzipOutput>(path);
  return std::make_unique<PlainOutput>(path);
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
