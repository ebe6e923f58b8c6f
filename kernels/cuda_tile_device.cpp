#include "kernels/cuda_tile_device.h"

#include <cstddef>
#include <string>

#include "kernels/attention.h"
#include "kernels/cuda_check.h"

namespace hcpsim::kernels {

namespace {

// Device memory of one call.
struct Buffer {
  void* p = nullptr;
  std::size_t bytes = 0;
  explicit Buffer(std::size_t n) : bytes(n < 256 ? 256 : n) { check_cuda(cudaMalloc(&p, bytes), "check tile: cudaMalloc"); }
  ~Buffer() {
    if (p) cudaFree(p);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

std::size_t elems(int a, int b, int c, int d) {
  return static_cast<std::size_t>(a) * static_cast<std::size_t>(b) * static_cast<std::size_t>(c) *
         static_cast<std::size_t>(d);
}

// The tile's causal rule is bottom-right (key j visible to query i when j <= i + kv_len - q_len),
// which is top-left for the square diagonal tiles.
AttentionDims dims_of(const Bf16Tile& t) {
  return {.batch = t.batch, .q_len = t.q_len, .kv_len = t.kv_len, .heads = t.heads, .kv_heads = t.kv_heads,
          .head_dim = t.head_dim, .mask = t.causal ? MaskKind::CausalBottomRight : MaskKind::None};
}

void upload(Buffer& dst, const void* src, std::size_t bytes, cudaStream_t s) {
  check_cuda(cudaMemcpyAsync(dst.p, src, bytes, cudaMemcpyHostToDevice, s), "check tile: copy to the GPU");
}

void download(void* dst, const Buffer& src, std::size_t bytes, cudaStream_t s) {
  check_cuda(cudaMemcpyAsync(dst, src.p, bytes, cudaMemcpyDeviceToHost, s), "check tile: copy from the GPU");
}

}  // namespace

CudaTileDevice::CudaTileDevice() {
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "check tile: cudaStreamCreate");
}

CudaTileDevice::~CudaTileDevice() {
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaTileDevice::forward(const Bf16Tile& t, const Bf16TileIn& in, std::uint16_t* o, float* lse) {
  std::lock_guard<std::mutex> lock(m_);
  const AttentionDims d = dims_of(t);
  const std::size_t nq = elems(t.batch, t.q_len, t.heads, t.head_dim) * 2;
  const std::size_t nk = elems(t.batch, t.kv_len, t.kv_heads, t.head_dim) * 2;
  const std::size_t nl = elems(t.batch, t.heads, t.q_len, 1) * sizeof(float);
  Buffer dq(nq), dk(nk), dv(nk), dout(nq), dl(nl);
  upload(dq, in.q, nq, stream_);
  upload(dk, in.k, nk, stream_);
  upload(dv, in.v, nk, stream_);
  attention_forward(d, dense_view(dq.p, t.q_len, t.heads, t.head_dim), dense_view(dk.p, t.kv_len, t.kv_heads, t.head_dim),
                    dense_view(dv.p, t.kv_len, t.kv_heads, t.head_dim), dense_view(dout.p, t.q_len, t.heads, t.head_dim),
                    static_cast<float*>(dl.p), stream_);
  download(o, dout, nq, stream_);
  download(lse, dl, nl, stream_);
  check_cuda(cudaStreamSynchronize(stream_), "check tile: attention_forward");
}

void CudaTileDevice::backward(const Bf16Tile& t, const Bf16TileIn& in, const Bf16TileGrads& out) {
  std::lock_guard<std::mutex> lock(m_);
  const AttentionDims d = dims_of(t);
  const std::size_t nq = elems(t.batch, t.q_len, t.heads, t.head_dim) * 2;
  const std::size_t nk = elems(t.batch, t.kv_len, t.kv_heads, t.head_dim) * 2;
  const std::size_t nl = elems(t.batch, t.heads, t.q_len, 1) * sizeof(float);
  Buffer bq(nq), bk(nk), bv(nk), bo(nq), bdo(nq), bl(nl), bdq(nq), bdk(nk), bdv(nk),
      ws(attention_backward_workspace_bytes(d));
  upload(bq, in.q, nq, stream_);
  upload(bk, in.k, nk, stream_);
  upload(bv, in.v, nk, stream_);
  upload(bo, in.o, nq, stream_);
  upload(bdo, in.dout, nq, stream_);
  upload(bl, in.lse, nl, stream_);
  auto qv = [&](Buffer& b) { return dense_view(b.p, t.q_len, t.heads, t.head_dim); };
  auto kv = [&](Buffer& b) { return dense_view(b.p, t.kv_len, t.kv_heads, t.head_dim); };
  attention_backward(d, qv(bq), kv(bk), kv(bv), qv(bo), qv(bdo), static_cast<const float*>(bl.p), qv(bdq), kv(bdk),
                     kv(bdv), ws.p, stream_);
  download(out.dq, bdq, nq, stream_);
  download(out.dk, bdk, nk, stream_);
  download(out.dv, bdv, nk, stream_);
  check_cuda(cudaStreamSynchronize(stream_), "check tile: attention_backward");
}

}  // namespace hcpsim::kernels
