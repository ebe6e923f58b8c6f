#pragma once
// Seeded random scenarios for the property test: every numeric field drawn over its whole valid range
// (engine/validate/field_ranges.h; log-uniform, with the range ends themselves drawn often), the
// parallel sizes drawn so that they usually satisfy Megatron's divisibility rules, and the cluster
// kept small (<= 32 GPUs, <= 3 simulated layers) so that a few hundred simulations take seconds.
#include <cstdint>
#include <random>
#include <string>

namespace hcpsim::test {

class ScenarioGenerator {
 public:
  explicit ScenarioGenerator(std::uint64_t seed) : rng_(seed) {}
  // One scenario as YAML text.
  std::string next();

 private:
  double log_uniform(double lo, double hi);   // lo or hi themselves 1 time in 8 each
  long long log_int(long long lo, long long hi);
  int pick_divisor(int n);
  bool coin(double p = 0.5) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::string quantity(const std::string& path, const char* unit, double unit_factor);
  std::mt19937_64 rng_;
};

}  // namespace hcpsim::test
