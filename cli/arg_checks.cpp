#include "cli/arg_checks.h"

#include <charconv>

namespace hcpsim::cli {

CLI::Validator non_empty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& v) -> std::string { return v.empty() ? what + " is empty" : std::string(); },
      "NON-EMPTY");
}

CLI::Validator int_range(long long lo, long long hi) {
  const std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  return CLI::Validator(
      [lo, hi, range](std::string& v) -> std::string {
        long long x = 0;
        const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
        if (ec == std::errc::result_out_of_range || (ec == std::errc() && ptr == v.data() + v.size() && (x < lo || x > hi)))
          return "'" + v + "' is outside the valid range " + range;
        if (ec != std::errc() || ptr != v.data() + v.size()) return "'" + v + "' is not a whole number (valid: " + range + ")";
        return {};
      },
      "INT in [" + range + "]");
}

}  // namespace hcpsim::cli
