#pragma once
// CUDA device discovery that never throws: used by run/calibrate to fail with a clear message
// and by the GPU tests to skip when there is no device.
#include <string>

namespace hcpsim::kernels {

// Number of usable CUDA devices; 0 when there is no device or no driver. `why` (optional) gets
// the CUDA error text when the count is 0.
int cuda_device_count(std::string* why = nullptr);

// One line per device: "GPU 0: NVIDIA H200, sm_90, 139.8 GiB, 132 SMs".
std::string describe_cuda_devices();

// "CUDA runtime 13.0, driver 12.8": the runtime this program carries and the newest CUDA the
// installed driver supports ("driver none" without one).
std::string describe_cuda_versions();

}  // namespace hcpsim::kernels
