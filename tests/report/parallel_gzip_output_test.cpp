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
    // The pieces are primed with the text before them: the size is that of one stream (the same
    // text written in one piece as the reference; a sync flush costs a few bytes per piece).
    const std::string one_path = temp_gz("one" + std::to_string(threads));
    auto one_out = open_parallel_gzip_output(one_path, threads);
    one_out->write(text);
    one_out->close();
    const double one_size = static_cast<double>(slurp(one_path).size());
    std::remove(one_path.c_str());
    std::size_t pieces = 0;
    for (std::size_t k = 0, a = 0; a < text.size(); ++k, ++pieces) a += sizes[k % std::size(sizes)];
    EXPECT_LT(static_cast<double>(gz.size()), 1.01 * one_size + 16.0 * static_cast<double>(pieces))
        << gz.size() << " in " << pieces << " pieces vs " << one_size << " in one";
    // And no larger than zlib's fastest level in one call (the writer is ISA-L's igzip level 1).
    uLongf zlib_len = compressBound(static_cast<uLong>(text.size()));
    std::string zlib_out(zlib_len, '\0');
    ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(zlib_out.data()), &zlib_len, reinterpret_cast<const Bytef*>(text.data()),
                        static_cast<uLong>(text.size()), 1),
              Z_OK);
    EXPECT_LT(static_cast<double>(gz.size()), 1.05 * static_cast<double>(zlib_len) + 4096) << gz.size() << " vs " << zlib_len;
    std::remove(path.c_str());
  }
}

// Text that repeats only at a distance of 16 KiB: a piece compresses well only when it is primed
// with the bytes before it (unprimed, every 64 KiB piece would spell its first 16 KiB out again).
TEST(ParallelGzipOutput, EachPieceIsPrimedWithTheBytesBeforeIt) {
  std::mt19937 rng(11);
  std::string block(16384, ' ');
  for (char& c : block) c = static_cast<char>('a' + rng() % 26);
  std::string text;
  while (text.size() < (2u << 20)) text += block;
  const std::string path = temp_gz("primed");
  auto out = open_parallel_gzip_output(path, 2);
  for (std::size_t at = 0; at < text.size(); at += 65536) out->write(std::string_view(text).substr(at, 65536));
  out->close();
  const std::string gz = slurp(path);
  EXPECT_EQ(inflate_one_member(gz), text);
  // The block alone, deflated: what each of the 32 pieces would cost at least if unprimed.
  uLongf block_len = compressBound(static_cast<uLong>(block.size()));
  std::string block_gz(block_len, '\0');
  ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(block_gz.data()), &block_len, reinterpret_cast<const Bytef*>(block.data()),
                      static_cast<uLong>(block.size()), 1),
            Z_OK);
  EXPECT_LT(gz.size(), 32 * block_len / 4) << gz.size() << " bytes in 32 pieces; the block alone deflates to " << block_len;
  std::remove(path.c_str());
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
