#include "tests/support/kineto_synth.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>
#include <vector>

namespace hcpsim::testing {
namespace {

// CUDA stream ids as a Megatron run shows them: compute 7, the CP ring's side stream 13, NCCL 20+.
int cuda_stream(Stream s) { return s == Stream::Main ? 7 : s == Stream::Cp ? 13 : 20 + static_cast<int>(s); }

const char* kernel_name(TaskKind k) {
  switch (k) {
    case TaskKind::AttentionForward: return "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_3_64x64x128_4x1x1_kernel0_0";
    case TaskKind::AttentionBackward: return "cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_f16_knob_7_64x128x128_4x1x1_kernel0_0";
    case TaskKind::Gemm: return "nvjet_tst_192x192_64x4_2x1_v_bz_coopA_TNT";
    case TaskKind::SendRecv:
    case TaskKind::AllToAll: return "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
    case TaskKind::AllGather: return "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    case TaskKind::ReduceScatter: return "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    case TaskKind::AllReduce: return "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)";
    case TaskKind::Copy: return "Memcpy DtoD (Device -> Device)";
    case TaskKind::LseMerge: return "void transformer_engine::context_parallel::thd_lse_kernel<float>(float*, float*, int*, int, int, int)";
    case TaskKind::OutCorrection: return "void transformer_engine::context_parallel::thd_out_correction_kernel<__nv_bfloat16, 128>(__nv_bfloat16*, __nv_bfloat16 const*, float*, float const*, int*, int, int, int, int)";
  }
  return "unknown";
}

const char* collective_name(TaskKind k) {
  switch (k) {
    case TaskKind::AllToAll: return "all_to_all";
    case TaskKind::AllGather: return "_allgather_base";
    case TaskKind::ReduceScatter: return "_reduce_scatter_base";
    case TaskKind::AllReduce: return "allreduce";
    default: return "send";
  }
}

// The input tensor's bytes PyTorch records as "In msg nelems" x dtype for a call whose rank sends
// `sent` bytes to n - 1 peers: all-gather its shard, reduce-scatter and all-to-all the whole buffer
// (n shards), all-reduce the buffer (a ring sends 2(n-1)/n of it).
double input_bytes(const TraceEvent& e) {
  const double n = static_cast<double>(e.peers.size()) + 1;
  if (n < 2) return e.bytes;
  switch (e.kind) {
    case TaskKind::AllGather: return e.bytes / (n - 1);
    case TaskKind::ReduceScatter:
    case TaskKind::AllToAll: return e.bytes * n / (n - 1);
    case TaskKind::AllReduce: return e.bytes * n / (2 * (n - 1));
    default: return e.bytes;
  }
}

class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "w")) {
    if (!f_) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
    std::setvbuf(f_, nullptr, _IOFBF, 1 << 20);
  }
  ~Writer() { if (f_) std::fclose(f_); }
  template <class... A>
  void put(const char* fmt, A... a) {
    const int n = std::fprintf(f_, fmt, a...);
    if (n < 0) throw std::runtime_error(path_ + ": write failed");
    bytes += n;
  }
  void close() {
    if (std::fclose(f_) != 0) throw std::runtime_error(path_ + ": write failed");
    f_ = nullptr;
  }
  double bytes = 0;

 private:
  std::string path_;
  std::FILE* f_;
};

// One rank's events of one layer copy, sorted by predicted start.
std::vector<const TraceEvent*> rank_events(const Trace& t, int rank) {
  std::vector<const TraceEvent*> out;
  for (const auto& e : t.events)
    if (e.rank == rank) out.push_back(&e);
  std::stable_sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->start_s < b->start_s; });
  return out;
}

void write_rank(const Trace& t, int rank, const std::string& path, const KinetoSynthOptions& o, double& total) {
  Writer w(path);
  w.put("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 80GB HBM3\", \"numSms\": 132}],\n");
  if (!o.omit_distributed_info)
    w.put("  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d},\n", rank, t.world_size);
  w.put("  \"traceEvents\": [\n");
  const auto events = rank_events(t, rank);
  const int pid = 1000 + rank;
  long long correlation = 1;
  double clock_us = 1.0e9;   // the profiler's clock: arbitrary origin
  bool first = true;
  auto sep = [&]() { w.put(first ? "  " : ",\n  "); first = false; };
  for (int step = 1; step <= o.steps; ++step) {
    const double step_start = clock_us;
    for (int layer = 0; layer < o.layers; ++layer) {
      const double base = clock_us;
      std::map<int, double> stream_free;   // CUDA stream -> time it is free (us)
      double pass_lo[2] = {1e300, 1e300}, pass_hi[2] = {0, 0};
      for (const TraceEvent* e : events) {
        const auto it = o.time_scale.find(e->kind);
        const double dur = (e->end_s - e->start_s) * 1e6 * (it == o.time_scale.end() ? 1.0 : it->second);
        const int stream = cuda_stream(e->stream);
        const double start = std::max(base + e->start_s * 1e6, stream_free[stream]);
        stream_free[stream] = start + dur;
        const int p = e->pass == Pass::Forward ? 0 : 1;
        pass_lo[p] = std::min(pass_lo[p], start);
        pass_hi[p] = std::max(pass_hi[p], start + dur);
        sep();
        w.put("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %d, "
              "\"ts\": %.3f, \"dur\": 4.0, \"args\": {\"correlation\": %lld}}", pid, pid, start - 20.0, correlation);
        for (int h = 0; h < o.host_ops_per_kernel; ++h) {
          w.put(",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::empty_strided\", \"pid\": %d, \"tid\": %d, "
                "\"ts\": %.3f, \"dur\": 1.5, \"args\": {\"External id\": %lld, \"Input Dims\": [[], [], [], [], [], []], "
                "\"Input type\": [\"\", \"\", \"Scalar\", \"\", \"Scalar\", \"\"], \"Sequence number\": %lld}}",
                pid, pid, start - 30.0 + h * 0.1, correlation, correlation);
        }
        const bool copy = e->kind == TaskKind::Copy;
        w.put(",\n  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, \"dur\": %.3f, "
              "\"args\": {\"External id\": %lld, \"device\": 0, \"stream\": %d, \"correlation\": %lld, \"grid\": [132, 1, 1], "
              "\"block\": [384, 1, 1]",
              copy ? "gpu_memcpy" : "kernel", kernel_name(e->kind), stream, start, dur, correlation, stream, correlation);
        if (is_communication(e->kind))
          w.put(", \"Collective name\": \"%s\", \"In msg nelems\": %.0f, \"dtype\": \"BFloat16\"", collective_name(e->kind), input_bytes(*e) / 2);
        w.put("}}");
        ++correlation;
        clock_us = std::max(clock_us, start + dur);
      }
      for (int p = 0; p < 2; ++p) {
        if (pass_hi[p] <= 0) continue;
        sep();
        w.put("{\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %.3f, "
              "\"dur\": %.3f, \"args\": {}}", p == 0 ? "forward" : "backward", pass_lo[p], pass_hi[p] - pass_lo[p]);
      }
      clock_us += 5.0;
    }
    sep();
    w.put("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": %d, \"tid\": %d, \"ts\": %.3f, "
          "\"dur\": %.3f, \"args\": {}}", step, pid, pid, step_start - 50.0, clock_us - step_start + 50.0);
    clock_us += 200.0;
  }
  w.put("\n  ],\n  \"traceName\": \"%s\"\n}\n", path.c_str());
  total += w.bytes;
  w.close();
}

}  // namespace

double write_kineto_traces(const Trace& predicted, const std::string& folder, const KinetoSynthOptions& options) {
  std::set<int> ranks;
  for (const auto& e : predicted.events) ranks.insert(e.rank);
  double total = 0;
  for (int r : ranks) write_rank(predicted, r, folder + "/rank-" + std::to_string(r) + ".pt.trace.json", options, total);
  return total;
}

}  // namespace hcpsim::testing
