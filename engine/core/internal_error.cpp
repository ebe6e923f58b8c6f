#include "engine/core/internal_error.h"

#include <cmath>
#include <cstdio>

namespace hcpsim {

void require_non_negative(const char* where, const std::string& field, double v) {
  if (std::isfinite(v) && v >= 0) return;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g", v);
  throw InternalError(std::string(where) + ": " + field + " = " + buf +
                      " (it must be a finite number >= 0)");
}

}  // namespace hcpsim
