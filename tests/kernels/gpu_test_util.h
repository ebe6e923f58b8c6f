#pragma once
// Helpers for the GPU tests: skip without a device, device buffers, bf16 on the host, random data.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/device.h"

#define HCPSIM_REQUIRE_GPU()                                                       \
  do {                                                                             \
    std::string why_;                                                              \
    if (::hcpsim::kernels::cuda_device_count(&why_) == 0)                          \
      GTEST_SKIP() << "no CUDA device (" << why_ << ")";                           \
  } while (0)

namespace hcpsim::test {

inline void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Round-to-nearest-even float -> bf16 bits, and back.
inline std::uint16_t to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  if (std::isnan(f)) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<std::uint16_t>(u >> 16);
}
inline float from_bf16(std::uint16_t h) {
  const std::uint32_t u = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// Device memory owned by the test.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    cuda_ok(cudaMalloc(&ptr_, bytes ? bytes : 16), "cudaMalloc");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return ptr_; }
  template <class T>
  void upload(const std::vector<T>& v) {
    cuda_ok(cudaMemcpy(ptr_, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "upload");
  }
  template <class T>
  std::vector<T> download(std::size_t count) const {
    std::vector<T> v(count);
    cuda_ok(cudaMemcpy(v.data(), ptr_, count * sizeof(T), cudaMemcpyDeviceToHost), "download");
    return v;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// `n` random bf16 values (normal, stddev `sd`); `values` receives them as exact floats.
inline std::vector<std::uint16_t> random_bf16(std::size_t n, std::mt19937& rng, std::vector<float>& values,
                                              float sd = 1.0f) {
  std::normal_distribution<float> dist(0.f, sd);
  std::vector<std::uint16_t> bits(n);
  values.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    bits[i] = to_bf16(dist(rng));
    values[i] = from_bf16(bits[i]);
  }
  return bits;
}

inline std::vector<float> to_floats(const std::vector<std::uint16_t>& bits) {
  std::vector<float> f(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) f[i] = from_bf16(bits[i]);
  return f;
}

// max |a - b| / max |b| over the elements (b is the reference).
inline double rel_max_error(const std::vector<float>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    num = std::max(num, std::abs(static_cast<double>(a[i]) - b[i]));
    den = std::max(den, std::abs(b[i]));
  }
  return den > 0 ? num / den : num;
}

}  // namespace hcpsim::test
