#include "kernels/task_timer.h"

#include <algorithm>
#include <cstring>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/graph/attention_work.h"
#include "kernels/cuda_check.h"

namespace hcpsim::kernels {
namespace {

struct DevMem {
  void* p = nullptr;
  std::size_t bytes = 0;
  void alloc(std::size_t n, const char* what) {
    bytes = std::max<std::size_t>(n, 256);
    const cudaError_t e = cudaMalloc(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw std::runtime_error(std::string("cannot allocate ") + std::to_string(bytes) + " bytes of GPU memory for " +
                               what + ": " + cudaGetErrorString(e));
    }
  }
  ~DevMem() { if (p) cudaFree(p); }
};

std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  static_assert(sizeof u == sizeof f);
  std::memcpy(&u, &f, 4);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}

}  // namespace

TaskId add_attention_task(TaskGraph& g, const AttentionShape& a, Pass pass) {
  Task t;
  t.kind = pass == Pass::Forward ? TaskKind::AttentionForward : TaskKind::AttentionBackward;
  t.pass = pass;
  t.attention = g.add_attention(a);
  t.flops = attention_flops(a, pass);
  return g.add_task(t, "attn");
}

MaskKind mask_of(MaskSection s) {
  switch (s) {
    case MaskSection::Diagonal:
    case MaskSection::Causal: return MaskKind::CausalTopLeft;
    case MaskSection::BottomRight: return MaskKind::CausalBottomRight;
    default: return MaskKind::None;
  }
}

AttentionDims attention_dims_of(const TaskGraph& g, const Task& t) {
  const AttentionShape& s = g.attention_of(t);
  auto fail = [&](const std::string& m) {
    throw std::invalid_argument("task " + std::to_string(g.id_of(t)) + " (" + g.display_name(t) + ", rank " +
                                std::to_string(t.rank) + "): " + m);
  };
  if (s.head_dim_qk != s.head_dim_v) fail("the GPU kernels need head_dim_qk == head_dim_v");
  if (s.head_dim_qk != 64 && s.head_dim_qk != 128) {
    fail("head_dim " + std::to_string(s.head_dim_qk) + " is not supported by the GPU kernels (64 or 128)");
  }
  if (s.q_len > std::numeric_limits<int>::max() / 2 || s.kv_len > std::numeric_limits<int>::max() / 2) {
    fail("sequence chunk too long for the GPU kernels");
  }
  return {.batch = s.batch, .q_len = static_cast<int>(s.q_len), .kv_len = static_cast<int>(s.kv_len),
          .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim_qk, .mask = mask_of(s.section)};
}

struct TaskTimer::Impl {
  const TaskGraph* g = nullptr;
  DevMem q, k, v, o, dout, dq, dk, dv, lse, ws, copy_src, copy_dst;
  std::size_t copy_bytes = 0;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
};

TaskTimer::TaskTimer(const TaskGraph& g, std::uint64_t seed) : impl_(std::make_unique<Impl>()) {
  impl_->g = &g;
  std::size_t q_el = 0, kv_el = 0, lse_el = 0, ws_b = 0, copy_b = 0;
  for (const Task& t : g.tasks()) {
    if (t.kind == TaskKind::AttentionForward || t.kind == TaskKind::AttentionBackward) {
      const AttentionDims d = attention_dims_of(g, t);
      q_el = std::max(q_el, static_cast<std::size_t>(d.batch) * d.q_len * d.heads * d.head_dim);
      kv_el = std::max(kv_el, static_cast<std::size_t>(d.batch) * d.kv_len * d.kv_heads * d.head_dim);
      lse_el = std::max(lse_el, static_cast<std::size_t>(d.batch) * d.heads * d.q_len);
      ws_b = std::max(ws_b, attention_backward_workspace_bytes(d));
    } else if (t.kind != TaskKind::Gemm) {
      copy_b = std::max(copy_b, static_cast<std::size_t>(std::ceil(t.bytes)));
    }
  }
  Impl& m = *impl_;
  m.q.alloc(q_el * 2, "Q"); m.o.alloc(q_el * 2, "O"); m.dout.alloc(q_el * 2, "dO"); m.dq.alloc(q_el * 2, "dQ");
  m.k.alloc(kv_el * 2, "K"); m.v.alloc(kv_el * 2, "V"); m.dk.alloc(kv_el * 2, "dK"); m.dv.alloc(kv_el * 2, "dV");
  m.lse.alloc(lse_el * 4, "LSE"); m.ws.alloc(ws_b, "backward workspace");
  m.copy_bytes = copy_b;
  m.copy_src.alloc(copy_b, "copies"); m.copy_dst.alloc(copy_b, "copies");
  // Random inputs: N(0,1) bf16 for Q, K, V, dO (one host pattern reused, cheap to generate).
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.f, 1.f);
  std::vector<std::uint16_t> host(std::max<std::size_t>(std::max(q_el, kv_el), 1));
  for (auto& x : host) x = bf16_bits(dist(rng));
  check_cuda(cudaMemcpy(m.q.p, host.data(), q_el * 2, cudaMemcpyHostToDevice), "upload Q");
  check_cuda(cudaMemcpy(m.dout.p, host.data(), q_el * 2, cudaMemcpyHostToDevice), "upload dO");
  std::shuffle(host.begin(), host.end(), rng);
  check_cuda(cudaMemcpy(m.k.p, host.data(), kv_el * 2, cudaMemcpyHostToDevice), "upload K");
  std::shuffle(host.begin(), host.end(), rng);
  check_cuda(cudaMemcpy(m.v.p, host.data(), kv_el * 2, cudaMemcpyHostToDevice), "upload V");
  check_cuda(cudaMemset(m.copy_src.p, 0, m.copy_src.bytes), "clear copy buffer");
  check_cuda(cudaEventCreate(&m.e0), "cudaEventCreate");
  check_cuda(cudaEventCreate(&m.e1), "cudaEventCreate");
}

TaskTimer::~TaskTimer() {
  if (impl_) {
    if (impl_->e0) cudaEventDestroy(impl_->e0);
    if (impl_->e1) cudaEventDestroy(impl_->e1);
  }
}

void TaskTimer::prepare(const Task& t, cudaStream_t stream) {
  if (t.kind != TaskKind::AttentionBackward) return;
  Impl& m = *impl_;
  const AttentionDims d = attention_dims_of(*m.g, t);
  attention_forward(d, dense_view(m.q.p, d.q_len, d.heads, d.head_dim),
                    dense_view(m.k.p, d.kv_len, d.kv_heads, d.head_dim),
                    dense_view(m.v.p, d.kv_len, d.kv_heads, d.head_dim),
                    dense_view(m.o.p, d.q_len, d.heads, d.head_dim), static_cast<float*>(m.lse.p), stream);
}

void TaskTimer::enqueue(const Task& t, cudaStream_t stream) {
  Impl& m = *impl_;
  switch (t.kind) {
    case TaskKind::AttentionForward: {
      const AttentionDims d = attention_dims_of(*m.g, t);
      attention_forward(d, dense_view(m.q.p, d.q_len, d.heads, d.head_dim),
                        dense_view(m.k.p, d.kv_len, d.kv_heads, d.head_dim),
                        dense_view(m.v.p, d.kv_len, d.kv_heads, d.head_dim),
                        dense_view(m.o.p, d.q_len, d.heads, d.head_dim), static_cast<float*>(m.lse.p), stream);
      return;
    }
    case TaskKind::AttentionBackward: {
      const AttentionDims d = attention_dims_of(*m.g, t);
      attention_backward(d, dense_view(m.q.p, d.q_len, d.heads, d.head_dim),
                         dense_view(m.k.p, d.kv_len, d.kv_heads, d.head_dim),
                         dense_view(m.v.p, d.kv_len, d.kv_heads, d.head_dim),
                         dense_view(m.o.p, d.q_len, d.heads, d.head_dim),
                         dense_view(m.dout.p, d.q_len, d.heads, d.head_dim), static_cast<const float*>(m.lse.p),
                         dense_view(m.dq.p, d.q_len, d.heads, d.head_dim),
                         dense_view(m.dk.p, d.kv_len, d.kv_heads, d.head_dim),
                         dense_view(m.dv.p, d.kv_len, d.kv_heads, d.head_dim), m.ws.p, stream);
      return;
    }
    case TaskKind::Gemm:
      throw std::invalid_argument("task " + std::to_string(impl_->g->id_of(t)) + ": GEMM tasks are not run by the GPU runner yet");
    default: {
      // Copy-like and (emulated) communication tasks: move the task's bytes. Compute bytes count
      // read + write, so a copy of bytes/2 touches them; comm bytes are what the rank sends.
      std::size_t n = static_cast<std::size_t>(std::ceil(t.bytes));
      if (!is_communication(t.kind)) n /= 2;
      n = std::min(n, m.copy_bytes);
      if (n > 0) check_cuda(cudaMemcpyAsync(m.copy_dst.p, m.copy_src.p, n, cudaMemcpyDeviceToDevice, stream), "copy task");
      return;
    }
  }
}

double TaskTimer::time_task(const Task& t, int warmup, int iterations, cudaStream_t stream) {
  Impl& m = *impl_;
  std::vector<float> ms;
  for (int i = 0; i < warmup + iterations; ++i) {
    prepare(t, stream);
    check_cuda(cudaEventRecord(m.e0, stream), "cudaEventRecord");
    enqueue(t, stream);
    check_cuda(cudaEventRecord(m.e1, stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(m.e1), "task execution");
    float x = 0;
    check_cuda(cudaEventElapsedTime(&x, m.e0, m.e1), "cudaEventElapsedTime");
    if (i >= warmup) ms.push_back(x);
  }
  std::sort(ms.begin(), ms.end());
  return ms.empty() ? 0.0 : ms[ms.size() / 2] * 1e-3;
}

}  // namespace hcpsim::kernels
