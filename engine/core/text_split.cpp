#include "engine/core/text_split.h"

#include <sstream>

namespace hcpsim {

std::vector<std::string> split_at(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string piece;
  while (std::getline(ss, piece, separator)) out.push_back(piece);
  return out;
}

}  // namespace hcpsim
