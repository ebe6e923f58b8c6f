#pragma once
// One fuzz input through loader -> validate -> graph -> analytic backend -> every writer, with the
// contract checked at each step (what "no crash, hang or silent wrong number" means for one input).
#include <string>
#include <vector>

namespace hcpsim::fuzz {

enum class Outcome {
  Rejected,           // the loader or validate refused it with positioned diagnostics
  Accepted,           // valid and simulated; every number finite and >= 0
  AcceptedTooLarge,   // valid, but its graph exceeds the fuzzer's per-input budget (not simulated)
  ContractBroken      // `why` says what broke
};

struct TargetOptions {
  double max_tasks = 200000;   // graphs larger than this are validated but not simulated
};

Outcome run_target(const std::string& yaml, const std::vector<std::string>& overrides, const TargetOptions& opt,
                   std::string& why);

}  // namespace hcpsim::fuzz
