#pragma once
// Kernel classification: the one table that says which measured kind a GPU kernel is, by its name
// (docs/validation.md "Kernel classification"). Rules are regular expressions (ECMAScript,
// case-insensitive), searched anywhere in the name; the first rule that matches wins. Rules from a
// user file come before the built-in ones.
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "engine/measured/measured_trace.h"

namespace hcpsim {

struct KernelRule {
  std::string pattern;   // regular expression
  MeasuredKind kind = MeasuredKind::Other;
  std::string source;    // "built-in" or "FILE:LINE"
};

// The built-in rules, in order: NCCL collectives, attention backward, attention forward, GEMMs,
// ring-attention corrections, copies, optimizer kernels, memory-bound kernels.
const std::vector<KernelRule>& builtin_kernel_rules();

// Reads extra rules from YAML: `kernel_rules: [{match: REGEX, kind: KIND}, ...]`. Throws
// std::runtime_error naming the file, line and field (an unknown kind lists the valid ones; a bad
// regular expression says why).
std::vector<KernelRule> load_kernel_rules_file(const std::string& path);
std::vector<KernelRule> load_kernel_rules_string(const std::string& yaml, const std::string& name_for_messages);

// Classifies names with `extra` rules first, then the built-in ones (readers ask once per distinct name).
class KernelClassifier {
 public:
  explicit KernelClassifier(std::vector<KernelRule> extra = {});
  MeasuredKind classify(std::string_view name) const;
  // The kind an NCCL kernel's recorded collective name ("allreduce", "all_to_all", "_allgather_base",
  // ...) stands for; false when the text names none of the five.
  static bool collective_kind(std::string_view collective, MeasuredKind& out);
  const std::vector<KernelRule>& rules() const { return rules_; }

 private:
  std::vector<KernelRule> rules_;
  std::vector<std::regex> compiled_;
};

}  // namespace hcpsim
