#include "engine/cost/fp8_rates.h"

namespace hcpsim {

bool fp8_gemm_label(std::string_view label) { return label.rfind("output_", 0) != 0; }

}  // namespace hcpsim
