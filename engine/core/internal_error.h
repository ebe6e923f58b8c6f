#pragma once
// InternalError: hcpsim computed something that cannot be (a negative time, a NaN throughput). It is
// a bug in hcpsim, never a problem of the input (validate refuses bad input first), so the writers
// throw it instead of printing the number, and the command line exits 3 asking for a report.
#include <stdexcept>
#include <string>

namespace hcpsim {

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& what) : std::logic_error(what) {}
};

// Throws InternalError naming `field` unless `v` is finite and >= 0.
void require_non_negative(const char* where, const std::string& field, double v);

}  // namespace hcpsim
