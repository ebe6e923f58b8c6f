// The gzip trace file compressed by several threads: one gzip member that zlib and read_trace_bytes
// decompress to exactly the bytes written, whatever the sizes of the pieces.
#include <gtest/gtest.h>

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <unistd.h>

#include "engine/trace/parallel_gzip_output.h"
#include "engine/trace/trace_output.h"
#include "tests/support/file_bytes.h"

namespace hcpsim {
namespace {

std::string temp_gz(const std::string& tag) {
  return (std::filesystem::temp_directory_path() / ("hcpsim-pgz-" + tag + "-" + std::to_string(::getpid()) + ".json.gz"))
      .string();
}

std::string slurp(const std::string& path) { return test::file_bytes(path); }

// Inflates one gzip member; fails the test unless the member ends exactly at the end of the file.
std::string inflate_one_member(const std::string& gz) {
  z_stream z{};
  EXPECT_EQ(inflateInit2(&z, 16 + 15), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof buf - z.avail_out);
  }
  EXPECT_EQ(rc, Z_STREAM_END) << "not a complete gzip member (CRC or length wrong?)";
  EXPECT_EQ(z.avail_in, 0u) << "bytes after the first gzip member";
  inflateEnd(&z);
  return out;
}

// Trace-like text: repetitive, with varying numbers.
std::string trace_text(std::size_t bytes, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s;
  while (s.size() < bytes)
    s += "{\"ph\":\"X\",\"name\":\"L0.fwd.s" + std::to_string(rng() % 128) + ".attn\",\"ts\":" + std::to_string(rng() % 100000) +
         "." + std::to_string(rng() % 1000000) + "},\n";
  s.resize(bytes);
  return s;
}

TEST(ParallelGzipOutput, PiecesOfEverySizeComeBackExactly) {
  const std::string text = trace_text(5'000'000, 7);
  for (const int threads : {1, 3}) {
    const std::string path = temp_gz("sizes" + std::to_string(threads));
    auto out = open_parallel_gzip_output(path, threads);
    // Pieces shorter and longer than the 32 KiB window, one byte, and a megabyte.
    const std::size_t sizes[] = {1, 100, 40000, 1 << 20, 7, 32768, 32767, 250000};
    std::size_t at = 0;
    for (std::size_t k = 0; at < text.size(); ++k) {
      const std::size_t n = std::min(sizes[k % std::size(sizes)], text.size() - at);
      out->write(std::string_view(text).substr(at, n));
      at += n;
    }
    out->close();
    const std::string gz = slurp(path);
    ASSERT_GE(gz.size(), 18u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
    EXPECT_EQ(inflate_one_member(gz), text) << threads << " threads";
    EXPECT_EQ(read_trace_bytes(path), text) << threads << " threads";
    // The pieces are primed with the text before them: the ratio is that of one stream (zlib
    // level 1 in one call as the reference).
    uLongf one_len = compressBound(static_cast<uLong>(text.size()));
    std::string one(one_len, '\0');
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(one.data()), &one_len, reinterpret_cast<const Bytef*>(text.data()),
                        static_cast<uLong>(text.size()), 1),
              Z_OK);
    EXPECT_LT(static_cast<double>(gz.size()), 1.05 * static_cast<double>(one_len) + 4096) << gz.size() << " vs " << one_len;
    std::remove(path.c_str());
  }
}

TEST(ParallelGzipOutput, NothingWrittenIsAnEmptyGzipFile) {
  const std::string path = temp_gz("empty");
  open_parallel_gzip_output(path, 2)->close();
  const std::string gz = slurp(path);
  EXPECT_EQ(inflate_one_member(gz), "");
  EXPECT_EQ(read_trace_bytes(path), "");
  std::remove(path.c_str());
}

TEST(ParallelGzipOutput, AFullDiskIsAnError) {
  auto out = open_parallel_gzip_output("/dev/full", 2);
  EXPECT_THROW(
      {
        for (int i = 0; i < 64; ++i) out->write(trace_text(1 << 18, static_cast<unsigned>(i)));
        out->close();
      },
      TraceWriteError);
}

TEST(ParallelGzipOutput, AnUnwritableFileIsNamed) {
  try {
    open_parallel_gzip_output("/nonexistent-dir/t.json.gz", 2);
    FAIL() << "no error";
  } catch (const TraceWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot write /nonexistent-dir/t.json.gz"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hcpsim
