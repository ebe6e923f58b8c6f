#include "engine/measured/gzip_stream.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace hcpsim {

GzipReadBuffer::GzipReadBuffer(const std::string& path, std::size_t buffer_bytes) : buffer_(buffer_bytes) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  gzbuffer(f, 1 << 18);
  file_ = f;
  setg(buffer_.data(), buffer_.data(), buffer_.data());
}

GzipReadBuffer::~GzipReadBuffer() {
  if (file_) gzclose(static_cast<gzFile>(file_));
}

GzipReadBuffer::int_type GzipReadBuffer::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (!file_ || !error_.empty()) return traits_type::eof();
  const int n = gzread(static_cast<gzFile>(file_), buffer_.data(), static_cast<unsigned>(buffer_.size()));
  if (n < 0) {
    int code = 0;
    error_ = gzerror(static_cast<gzFile>(file_), &code);
    if (error_.empty()) error_ = "read error";
    return traits_type::eof();
  }
  if (n == 0) {
    int code = 0;
    const char* msg = gzerror(static_cast<gzFile>(file_), &code);
    if (code != Z_OK && code != Z_STREAM_END) error_ = msg ? msg : "read error";
    return traits_type::eof();
  }
  consumed_ += static_cast<std::size_t>(n);
  setg(buffer_.data(), buffer_.data(), buffer_.data() + n);
  return traits_type::to_int_type(*gptr());
}

std::string read_file_head(const std::string& path, std::size_t n) {
  GzipReadBuffer buf(path, 1 << 16);
  std::string out(n, '\0');
  const auto got = buf.sgetn(out.data(), static_cast<std::streamsize>(n));
  out.resize(static_cast<std::size_t>(got));
  return out;
}

}  // namespace hcpsim
