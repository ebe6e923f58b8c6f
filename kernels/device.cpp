#include "kernels/device.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <sstream>

namespace hcpsim::kernels {

int cuda_device_count(std::string* why) {
  int n = 0;
  const cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
    cudaGetLastError();   // clear the sticky error state
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA runtime reports no device";
  return n;
}

std::string describe_cuda_devices() {
  std::ostringstream os;
  const int n = cuda_device_count();
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    char mem[32];
    std::snprintf(mem, sizeof mem, "%.1f", static_cast<double>(p.totalGlobalMem) / (1ull << 30));
    os << "GPU " << i << ": " << p.name << ", sm_" << p.major << p.minor << ", " << mem << " GiB, "
       << p.multiProcessorCount << " SMs\n";
  }
  return os.str();
}

std::string describe_cuda_versions() {
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  std::ostringstream os;
  os << "CUDA runtime " << rt / 1000 << "." << (rt % 1000) / 10 << ", driver ";
  if (drv == 0) os << "none";
  else os << drv / 1000 << "." << (drv % 1000) / 10;
  return os.str();
}

}  // namespace hcpsim::kernels
