#pragma once
// What `hcpsim calibrate` prints: the measured tables (kernels/calibrate.h), the interference probe
// (kernels/interference_probe.h) as CSV, and the device preflight. CUDA builds only.
#include <iosfwd>

#include "kernels/calibrate.h"
#include "kernels/interference_probe.h"

namespace hcpsim::cli {

void print_calibration(const kernels::CalibrationResult& r, std::ostream& out);
// CSV: pass,copy_ctas,copy_alone_GBps,attention_alone_ms,attention_alone_tflops,attention_beside_ms,
// measured_slowdown,model_load,model_slowdown,slowdown_error (= model / measured - 1), after a '#'
// line naming the shape.
void print_interference_csv(const kernels::InterferenceResult& r, std::ostream& out);
// The devices the CUDA runtime sees, runtime/driver versions and the NCCL library found (or why
// not); returns the number of devices.
int print_devices(std::ostream& out);

}  // namespace hcpsim::cli
