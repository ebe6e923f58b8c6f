#include "kernels/interference_probe.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "engine/analytic/processor_sharing_gpu.h"
#include "engine/cost/comm_load.h"
#include "engine/graph/attention_work.h"
#include "kernels/bandwidth_copy.h"
#include "kernels/calibrate.h"
#include "kernels/cuda_check.h"
#include "kernels/device.h"
#include "kernels/task_timer.h"

namespace hcpsim::kernels {
namespace {

constexpr std::size_t kCopyBytes = 64u << 20;   // source + destination 128 MiB, above any L2 (H200: 60 MB)

struct Events {
  cudaEvent_t a = nullptr, b = nullptr;
  Events() {
    check_cuda(cudaEventCreate(&a), "cudaEventCreate");
    check_cuda(cudaEventCreate(&b), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  double seconds() const {
    check_cuda(cudaEventSynchronize(b), "probe");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    return ms * 1e-3;
  }
};

struct Buffers {
  void* src = nullptr;
  void* dst = nullptr;
  Buffers() {
    check_cuda(cudaMalloc(&src, kCopyBytes), "cudaMalloc (probe copy)");
    check_cuda(cudaMalloc(&dst, kCopyBytes), "cudaMalloc (probe copy)");
    check_cuda(cudaMemset(src, 0, kCopyBytes), "cudaMemset");
  }
  ~Buffers() {
    cudaFree(src);
    cudaFree(dst);
  }
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

InterferenceResult probe_interference(const InterferenceRequest& r) {
  std::string why;
  if (cuda_device_count(&why) == 0) throw NoCudaDevice("no CUDA device found (" + why + "); the probe measures a real GPU");
  const Scenario s = r.scenario != nullptr ? *r.scenario : Scenario{};
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  cudaDeviceProp prop{};
  check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  InterferenceResult out;
  out.sm_count = prop.multiProcessorCount;
  out.hbm_Bps = s.cluster.gpu.hbm_Bps;
  out.hbm_weight = s.cluster.efficiency.comm_hbm_interference;
  out.attention = "8192 x 8192 causal, head_dim 128, 16 heads, bf16 (our kernels)";

  TaskGraph g;
  g.world_size = 1;
  const AttentionShape a = attention_shape(1, 8192, 8192, 16, 16, 128, 128, MaskSection::Diagonal);
  for (Pass pass : {Pass::Forward, Pass::Backward}) add_attention_task(g, a, pass);
  TaskTimer timer(g, 1);
  Buffers buf;
  cudaStream_t main_s = nullptr, side_s = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&main_s, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaStreamCreateWithFlags(&side_s, cudaStreamNonBlocking), "cudaStreamCreate");
  struct StreamGuard {
    cudaStream_t a, b;
    ~StreamGuard() {
      cudaStreamDestroy(a);
      cudaStreamDestroy(b);
    }
  } guard{main_s, side_s};
  Events attn_ev, copy_ev;
  for (const Task& t : g.tasks()) {
    const double alone = timer.time_task(t, 1, r.iterations, main_s);
    for (int ctas : r.copy_ctas) {
      // The copy alone: one pass over the buffer, read + write.
      std::vector<double> c;
      for (int i = 0; i < r.iterations; ++i) {
        check_cuda(cudaEventRecord(copy_ev.a, side_s), "cudaEventRecord");
        bandwidth_copy(buf.src, buf.dst, kCopyBytes, ctas, 1, side_s);
        check_cuda(cudaEventRecord(copy_ev.b, side_s), "cudaEventRecord");
        c.push_back(copy_ev.seconds());
      }
      InterferencePoint p;
      p.pass = to_string(t.pass);
      p.copy_ctas = ctas;
      p.copy_alone_Bps = 2.0 * kCopyBytes / median(c);
      p.attention_flops = t.flops;
      p.attention_alone_s = alone;
      // Enough passes that the copy outlasts the attention three times over.
      const int repeats = std::max(1, static_cast<int>(3.0 * alone / median(c)) + 1);
      std::vector<double> beside;
      for (int i = 0; i < r.iterations; ++i) {
        timer.prepare(t, main_s);
        check_cuda(cudaStreamSynchronize(main_s), "probe");
        bandwidth_copy(buf.src, buf.dst, kCopyBytes, ctas, repeats, side_s);
        check_cuda(cudaEventRecord(attn_ev.a, main_s), "cudaEventRecord");
        timer.enqueue(t, main_s);
        check_cuda(cudaEventRecord(attn_ev.b, main_s), "cudaEventRecord");
        beside.push_back(attn_ev.seconds());
        check_cuda(cudaStreamSynchronize(side_s), "probe copy");
      }
      p.attention_beside_s = median(beside);
      p.measured_slowdown = p.attention_beside_s / alone;
      p.model_load = comm_compute_load_of(ctas, out.sm_count, p.copy_alone_Bps, out.hbm_Bps, out.hbm_weight);
      p.model_slowdown = 1.0 / std::max(ProcessorSharingGpu::kMinShare, 1.0 - p.model_load);
      out.points.push_back(p);
    }
  }
  return out;
}

}  // namespace hcpsim::kernels
