// Speed of the gzip trace writer on real trace text: the Chrome trace of a 512-rank a2a+p2p
// ([8,64]) run, 4 layers forward (about 80 MB of JSON), cut into the one-megabyte pieces the trace
// writer hands over, deflated by one thread of the parallel gzip output (ISA-L's igzip, level 1,
// each piece primed with the 32 KiB before it) and, as the reference it replaced, by one zlib
// stream at level 1 over the whole text plus its CRC-32 (zlib's fastest possible use). Counters:
// bytes_per_second (of text, wall time: the writer deflates on its own thread) and ratio (text /
// compressed bytes).
//   bench_trace_gzip                 both numbers are per core
#include <benchmark/benchmark.h>

#include <zlib.h>

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/engine/bench_scenario.h"
#include "engine/analytic/analytic_backend.h"
#include "engine/schedule/build.h"
#include "engine/trace/parallel_gzip_output.h"
#include "engine/trace/trace.h"

namespace {

using namespace hcpsim;

// The trace text, once per process.
const std::string& trace_text() {
  static const std::string text = [] {
    Scenario s = bench::bench_scenario(512, {8, 64}, "a2a+p2p");
    s.simulation.backward = false;
    const RankLayout layout = RankLayout::from_scenario(s);
    const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
    const CostModel cost(s);
    RunContext ctx{s, layout, cost, {}};
    TraceCollector sink;
    AnalyticBackend().run(g, ctx, sink);
    sink.trace.world_size = layout.world_size();
    std::ostringstream os;
    write_chrome_trace(sink.trace, os);
    return os.str();
  }();
  return text;
}

std::size_t file_size(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) throw std::runtime_error("cannot read " + path);
  std::fseek(f, 0, SEEK_END);
  const long n = std::ftell(f);
  std::fclose(f);
  return static_cast<std::size_t>(n);
}

void BM_IgzipPiecesOneThread(benchmark::State& state) {
  const std::string& text = trace_text();
  const std::string path = "/tmp/hcpsim_bench_trace_gzip.json.gz";
  for (auto _ : state) {
    auto out = open_parallel_gzip_output(path, 1);
    for (std::size_t at = 0; at < text.size(); at += 1 << 20) out->write(std::string_view(text).substr(at, 1 << 20));
    out->close();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["ratio"] = static_cast<double>(text.size()) / static_cast<double>(file_size(path));
  std::remove(path.c_str());
}
BENCHMARK(BM_IgzipPiecesOneThread)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

void BM_ZlibLevel1OneStreamReference(benchmark::State& state) {
  const std::string& text = trace_text();
  std::vector<unsigned char> out(compressBound(static_cast<uLong>(text.size())));
  std::size_t used = 0;
  for (auto _ : state) {
    z_stream z{};
    if (deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflateInit2");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate");
    used = out.size() - z.avail_out;
    deflateEnd(&z);
    benchmark::DoNotOptimize(crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
  state.counters["ratio"] = static_cast<double>(text.size()) / static_cast<double>(used + 18);
}
BENCHMARK(BM_ZlibLevel1OneStreamReference)->Unit(benchmark::kMillisecond)->Iterations(3)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
