#include <stdexcept>
#include <string>

#include "kernels/attention.h"

namespace hcpsim::kernels {

BhsdView dense_view(void* data, std::int64_t seq, int heads, int dim) {
  BhsdView v;
  v.data = data;
  v.head_stride = dim;
  v.seq_stride = static_cast<std::int64_t>(heads) * dim;
  v.batch_stride = seq * v.seq_stride;
  return v;
}

void check_attention_args(const AttentionDims& d, const BhsdView* views, int view_count) {
  auto fail = [](const std::string& m) { throw std::invalid_argument("attention kernel: " + m); };
  if (d.batch < 1) fail("batch must be >= 1, got " + std::to_string(d.batch));
  if (d.q_len < 0 || d.kv_len < 0) fail("q_len and kv_len must be >= 0");
  if (d.heads < 1 || d.kv_heads < 1) fail("heads and kv_heads must be >= 1");
  if (d.heads % d.kv_heads != 0) {
    fail("heads (" + std::to_string(d.heads) + ") must be a multiple of kv_heads (" +
         std::to_string(d.kv_heads) + ")");
  }
  if (d.head_dim != 64 && d.head_dim != 128) {
    fail("head_dim must be 64 or 128, got " + std::to_string(d.head_dim));
  }
  if (!(d.softmax_scale >= 0)) fail("softmax_scale must be >= 0 (0 = 1/sqrt(head_dim))");
  for (int i = 0; i < view_count; ++i) {
    const BhsdView& v = views[i];
    if (v.data == nullptr) fail("tensor " + std::to_string(i) + " has no data pointer");
    // 16-byte accesses: pointers and strides in whole groups of 8 bf16.
    if (reinterpret_cast<std::uintptr_t>(v.data) % 16 != 0 || v.batch_stride % 8 != 0 ||
        v.seq_stride % 8 != 0 || v.head_stride % 8 != 0) {
      fail("tensor " + std::to_string(i) + ": pointer and strides must be multiples of 16 bytes");
    }
  }
}

}  // namespace hcpsim::kernels
