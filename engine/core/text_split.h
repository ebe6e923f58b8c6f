#pragma once
// Splitting a string at a separator character ("tp-cp-ep-dp-pp" at '-', "model.seq_length" at '.').
#include <string>
#include <vector>

namespace hcpsim {

// The pieces between separators, empty pieces included ("a..b" -> {"a", "", "b"}); "" -> {}.
std::vector<std::string> split_at(const std::string& text, char separator);

}  // namespace hcpsim
