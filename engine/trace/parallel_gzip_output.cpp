#include "engine/trace/parallel_gzip_output.h"

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

namespace hcpsim {
namespace {

constexpr std::size_t kWindow_bytes = 32768;   // deflate's window: what a piece may refer back to

std::string cannot_write(const std::string& path) {
  return "cannot write " + path + (errno != 0 ? std::string(": ") + std::strerror(errno) : std::string());
}

struct Piece {
  std::uint64_t seq = 0;
  std::string input;
  std::string dictionary;   // the last bytes of the piece before (empty for the first)
};

class ParallelGzipOutput : public TraceOutput {
 public:
  ParallelGzipOutput(const std::string& path, int threads) : path_(path), threads_(std::max(1, threads)) {
    errno = 0;
    f_ = std::fopen(path.c_str(), "wb");
    if (f_ == nullptr) throw TraceWriteError(cannot_write(path));
    // Header: magic, deflate, no flags, no time, "fastest" (XFL 4), Unix.
    const std::array<unsigned char, 10> header = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3};
    put(header.data(), header.size());
  }
  ~ParallelGzipOutput() override {
    stop();
    if (f_ != nullptr) std::fclose(f_);
  }

  void write(std::string_view bytes) override { write_owned(std::string(bytes)); }
  void write_owned(std::string&& owned) override {
    if (owned.empty()) return;
    if (workers_.empty())
      for (int i = 0; i < threads_; ++i) workers_.emplace_back([this] { work(); });
    Piece p;
    p.input = std::move(owned);
    const std::string_view bytes = p.input;
    p.dictionary.swap(last_window_);
    const std::size_t keep = std::min(kWindow_bytes, bytes.size());
    if (keep < kWindow_bytes && !p.dictionary.empty()) {
      // A short piece: the window is the end of the previous window followed by this piece.
      const std::size_t from_before = std::min(kWindow_bytes - keep, p.dictionary.size());
      last_window_.assign(p.dictionary, p.dictionary.size() - from_before, from_before);
    }
    last_window_.append(bytes.substr(bytes.size() - keep));
    std::unique_lock lock(mutex_);
    // One piece per thread plus one waiting: the pieces in flight are memory a run in progress
    // holds on top of its own (the file is written during the run).
    space_.wait(lock, [this] { return in_flight_ < static_cast<std::size_t>(threads_) + 1 || error_; });
    if (error_) std::rethrow_exception(error_);
    p.seq = next_seq_++;
    ++in_flight_;
    queue_.push_back(std::move(p));
    ready_.notify_one();
  }

  void close() override {
    stop();
    if (error_) std::rethrow_exception(error_);
    // A final empty block (fixed Huffman, end of block), then CRC-32 and length mod 2^32, little-endian.
    std::array<unsigned char, 10> tail = {0x03, 0x00};
    for (int i = 0; i < 4; ++i) {
      tail[2 + i] = static_cast<unsigned char>((crc_ >> (8 * i)) & 0xff);
      tail[6 + i] = static_cast<unsigned char>((total_bytes_ >> (8 * i)) & 0xff);
    }
    put(tail.data(), tail.size());
    errno = 0;
    const bool ok = std::fflush(f_) == 0 && std::ferror(f_) == 0;
    const bool closed = std::fclose(f_) == 0;
    f_ = nullptr;
    if (!ok || !closed) throw TraceWriteError(cannot_write(path_) + " (gzip)");
  }

 private:
  void put(const void* data, std::size_t n) {
    errno = 0;
    if (std::fwrite(data, 1, n, f_) != n) throw TraceWriteError(cannot_write(path_) + " (gzip)");
  }

  // One compressing thread's deflate stream (ISA-L's igzip, level 1, with its level buffer),
  // initialised once per piece: an init only clears the stream's state, the buffer is reused.
  class Deflater {
   public:
    Deflater() : level_buf_(ISAL_DEF_LVL1_DEFAULT) {}
    Deflater(const Deflater&) = delete;
    Deflater& operator=(const Deflater&) = delete;

    // Raw deflate of one piece, ending on a byte boundary (sync flush), not final, into `out` (the
    // thread's own buffer, grown when needed and reused for its next piece: never cleared, only
    // written); returns the bytes used.
    std::size_t piece(Piece& p, std::vector<unsigned char>& out) {
      isal_deflate_init(&z_);
      z_.level = 1;
      z_.level_buf = level_buf_.data();
      z_.level_buf_size = static_cast<std::uint32_t>(level_buf_.size());
      z_.gzip_flag = IGZIP_DEFLATE;
      z_.flush = SYNC_FLUSH;
      z_.end_of_stream = 0;
      if (!p.dictionary.empty() &&
          isal_deflate_set_dict(&z_, reinterpret_cast<std::uint8_t*>(p.dictionary.data()),
                                static_cast<std::uint32_t>(p.dictionary.size())) != COMP_OK)
        throw std::runtime_error("igzip: isal_deflate_set_dict failed");
      // Stored blocks at worst: 5 bytes per 64 KiB, plus the flush.
      const std::size_t bound = p.input.size() + p.input.size() / 1024 + 64;
      if (out.size() < bound) out.resize(bound);
      z_.next_in = reinterpret_cast<std::uint8_t*>(p.input.data());
      z_.avail_in = static_cast<std::uint32_t>(p.input.size());
      std::size_t used = 0;
      while (true) {
        z_.next_out = out.data() + used;
        z_.avail_out = static_cast<std::uint32_t>(out.size() - used);
        if (isal_deflate(&z_) != COMP_OK) throw std::runtime_error("igzip: isal_deflate failed");
        used = out.size() - z_.avail_out;
        // All consumed and flushed: the stream waits for a new block header.
        if (z_.avail_in == 0 && z_.internal_state.state == ZSTATE_NEW_HDR) break;
        out.resize(out.size() * 2);
      }
      return used;
    }

   private:
    isal_zstream z_{};
    std::vector<std::uint8_t> level_buf_;
  };

  void work() {
    std::vector<unsigned char> out;
    std::optional<Deflater> deflater;
    while (true) {
      Piece p;
      {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [this] { return !queue_.empty() || closing_; });
        if (queue_.empty()) return;
        p = std::move(queue_.front());
        queue_.pop_front();
      }
      std::size_t used = 0;
      uLong crc = 0;
      std::exception_ptr failed;
      try {
        if (!deflater) deflater.emplace();
        used = deflater->piece(p, out);
        crc = crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(p.input.data()), p.input.size());
      } catch (...) {
        failed = std::current_exception();
      }
      // Appended in order: wait for this piece's turn.
      std::unique_lock lock(mutex_);
      turn_.wait(lock, [&] { return next_write_ == p.seq; });
      if (!error_ && failed) error_ = failed;
      if (!error_) {
        try {
          put(out.data(), used);
          crc_ = crc32_combine(crc_, crc, static_cast<z_off_t>(p.input.size()));
          total_bytes_ += p.input.size();
        } catch (...) {
          error_ = std::current_exception();
        }
      }
      ++next_write_;
      --in_flight_;
      turn_.notify_all();
      space_.notify_all();
    }
  }

  void stop() {
    if (workers_.empty()) return;
    {
      std::lock_guard lock(mutex_);
      closing_ = true;
    }
    ready_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }

  std::string path_;
  int threads_;
  std::FILE* f_ = nullptr;
  std::string last_window_;   // the last 32 KiB written so far (the next piece's dictionary)
  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable ready_, space_, turn_;
  std::deque<Piece> queue_;
  std::uint64_t next_seq_ = 0, next_write_ = 0;
  std::size_t in_flight_ = 0;
  bool closing_ = false;
  std::exception_ptr error_;
  uLong crc_ = 0;                 // CRC-32 of everything appended so far
  std::uint64_t total_bytes_ = 0;
};

}  // namespace

std::unique_ptr<TraceOutput> open_parallel_gzip_output(const std::string& path, int threads) {
  return std::make_unique<ParallelGzipOutput>(path, threads);
}

}  // namespace hcpsim
