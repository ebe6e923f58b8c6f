#pragma once
// A bandwidth-bound kernel that holds a chosen number of SMs, as an NCCL kernel does (one CTA per
// channel, each alone on its SM): the stand-in for communication in the interference probe.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace hcpsim::kernels {

// Copies `bytes` (a multiple of 16, pointers 16-byte aligned) from src to dst `repeats` times with
// `ctas` CTAs of 512 threads; each CTA reserves all the shared memory a CTA may have, so that no
// other CTA (of this kernel or another) shares its SM. Throws std::invalid_argument for a bad argument.
void bandwidth_copy(const void* src, void* dst, std::size_t bytes, int ctas, int repeats, cudaStream_t stream);

}  // namespace hcpsim::kernels
