#pragma once
// CUDA error to exception: every runtime call of kernels/ goes through check_cuda.
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>

namespace hcpsim::kernels {

// Throws std::runtime_error "<what>: <CUDA error name>: <message>" when `err` is not cudaSuccess.
inline void check_cuda(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(err) + ": " +
                             cudaGetErrorString(err));
  }
}

}  // namespace hcpsim::kernels
