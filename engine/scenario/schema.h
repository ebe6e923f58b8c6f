#pragma once
// The scenario schema as a set of dotted paths (list items written "a.b[]"), used to reject unknown
// keys and overrides, and the "did you mean" suggestions.
#include <string>
#include <vector>

namespace hcpsim::schema {

// True when `path` (e.g. "model.num_layers", "cluster.faults[].rank") is a field of the schema.
bool is_known_path(const std::string& path);
// The keys allowed directly under `parent` ("" for the top level, "cluster.faults[]" for a fault).
std::vector<std::string> child_keys(const std::string& parent);
// Every known dotted path (for override suggestions).
const std::vector<std::string>& all_paths();

// Levenshtein distance between two strings (bytes).
std::size_t edit_distance(const std::string& a, const std::string& b);
// The closest candidate within a small edit distance, or "" when none is close.
std::string closest(const std::string& word, const std::vector<std::string>& candidates);
// "did you mean 'x'?", or the three nearest valid keys when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// Megatron-Bridge / Megatron-Core fields (and whole Bridge config sections) that are real but that
// hcpsim does not model: accepted with a warning. Returns what is ignored ("dropout", "the optimizer
// section", ...) for such a path, else "".
std::string unmodelled_bridge_field(const std::string& path);

}  // namespace hcpsim::schema
