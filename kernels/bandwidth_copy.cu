#include "kernels/bandwidth_copy.h"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/cuda_check.h"

namespace hcpsim::kernels {
namespace {

constexpr int kThreads = 512;

__global__ void bandwidth_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, std::size_t n,
                                      int repeats) {
  extern __shared__ uint4 reserved[];   // only there to keep other CTAs off this SM
  if (n == 0) reserved[threadIdx.x] = uint4{};
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (int r = 0; r < repeats; ++r)
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
      __stcg(dst + i, __ldcg(src + i));   // through L2 only: HBM traffic, as NCCL's copies
}

}  // namespace

void bandwidth_copy(const void* src, void* dst, std::size_t bytes, int ctas, int repeats, cudaStream_t stream) {
  if (bytes % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0 || reinterpret_cast<std::uintptr_t>(dst) % 16 != 0)
    throw std::invalid_argument("bandwidth_copy: bytes and pointers must be multiples of 16");
  if (ctas < 1 || repeats < 1)
    throw std::invalid_argument("bandwidth_copy: ctas and repeats must be >= 1 (got " + std::to_string(ctas) + ", " +
                                std::to_string(repeats) + ")");
  int device = 0, reserve = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  // All the shared memory one CTA may have (227 KB of 228 on sm_90): no other CTA, of this kernel
  // or of the attention beside it (36 KB or more), fits on the SM.
  check_cuda(cudaDeviceGetAttribute(&reserve, cudaDevAttrMaxSharedMemoryPerBlockOptin, device), "shared memory per block");
  check_cuda(cudaFuncSetAttribute(bandwidth_copy_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, reserve),
             "bandwidth_copy shared memory");
  bandwidth_copy_kernel<<<ctas, kThreads, reserve, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst),
                                                            bytes / 16, repeats);
  check_cuda(cudaGetLastError(), "bandwidth_copy launch");
}

}  // namespace hcpsim::kernels
