#pragma once
// A std::streambuf that reads a file through zlib: gzip is decompressed, any other file passes
// through unchanged. Lets the trace readers stream files of any size with a fixed buffer.
#include <streambuf>
#include <string>
#include <vector>

namespace hcpsim {

class GzipReadBuffer : public std::streambuf {
 public:
  // Throws std::runtime_error "PATH: cannot open: reason".
  explicit GzipReadBuffer(const std::string& path, std::size_t buffer_bytes = 1 << 20);
  ~GzipReadBuffer() override;
  GzipReadBuffer(const GzipReadBuffer&) = delete;
  GzipReadBuffer& operator=(const GzipReadBuffer&) = delete;
  // Bytes handed out so far (uncompressed).
  std::size_t consumed() const { return consumed_ - static_cast<std::size_t>(egptr() - gptr()); }
  // The zlib error after a failed read ("" when none): a truncated gzip file reports here.
  const std::string& error() const { return error_; }

 protected:
  int_type underflow() override;

 private:
  void* file_ = nullptr;   // gzFile
  std::vector<char> buffer_;
  std::size_t consumed_ = 0;
  std::string error_;
};

// The first `n` uncompressed bytes of a file (fewer when it is shorter). Throws like GzipReadBuffer.
std::string read_file_head(const std::string& path, std::size_t n);

}  // namespace hcpsim
