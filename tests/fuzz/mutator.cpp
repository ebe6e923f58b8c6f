#include "mutator.h"

#include <algorithm>
#include <sstream>

#include "engine/scenario/schema.h"

namespace hcpsim::fuzz {

namespace {

const std::vector<std::string>& extremes() {
  static const std::vector<std::string> v{
      "0", "-1", "1", "2", "3", "7", "8", "16", "2147483647", "2147483648", "-2147483648",
      "9223372036854775807", "99999999999999999999", "1073741824", "1073741825", "262144", "262145", "65536",
      "4096", "4097", "16384", "16385", "1048576", "1e308", "-1e308", "5e-324", "1e-300", "1.5", "0.0", "-0",
      "nan", ".nan", ".inf", "-.inf", "0x10", "0o17", "1_000", "true", "false", "null", "~", "''", "\"\"",
      "[]", "{}", "[1, 2]", "[0, 0]", "[2, 2]", "[4, 2]", "[262144, 262144]", "[1, 1, 1, 1, 1, 1, 1, 1, 1]",
      "5e-324 GB/s", "1e300 TB/s", "1e-300 MB/s", "0 GB/s", "-5 GB/s", "nan GB/s", "inf GB/s",
      "0 us", "-5 us", "1e-30 s", "1e30 s", "5e-324 s", "1e308 ms", "1e-300 ns",
      "80 GB", "1e-300 MB", "1e300 TB", "1 KiB", "989 TFLOPS", "1e-300 GFLOPS", "1e300 PFLOPS",
      "a2a+p2p", "all_gather", "allgather", "p2p", "a2a", "[p2p, a2a]", "[a2a+p2p]", "forward", "backward",
      "[backward]", "[forward]", "[forward, forward]", "[forward, backward, forward]", "analytic", "simgrid", "",
      "{rank: 0, slowdown: 1000}", "{rank: 0, slowdown: 1e308}", "{node: 0, nic: 0, failed: true}",
      "[{node: 0, nic: 0, failed: true}, {node: 0, nic: 1, failed: true}]",
      "[{node: 1, nic: 0, bandwidth_factor: 1e-300}, {node: 1, nic: 0, bandwidth_factor: 0.5}]",
      "[{rank: 2147483647, slowdown: 2}]", "dgx-h100", "gb200-nvl72", "h100-sxm", "../../etc/passwd", "/dev/zero",
      "&a [1, 2]", "*a", "!!binary aGVsbG8=", "{a: {b: {c: {d: [1, [2, [3]]]}}}}", "\xC3\xA9\xE2\x82\xAC", "\xFF"};
  return v;
}

const std::vector<std::string>& tokens() {
  static const std::vector<std::string> v{": ", "\n", "- ", "[", "]", "{", "}", ", ", "&a ", "*a", "!!str ", "~",
                                          "\t", "#", "---\n", "'", "\"", "? ", "|\n", ">\n", "<<: ", "%YAML 1.2\n",
                                          "\\", "\r\n", "  ", "\xEF\xBB\xBF"};
  return v;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(s);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

Mutator::Mutator(std::vector<std::string> corpus, std::uint64_t seed) : corpus_(std::move(corpus)), rng_(seed) {
  if (corpus_.empty()) corpus_.push_back("name: x\n");
}

std::string Mutator::extreme_value() {
  const std::size_t pick = below(20);
  if (pick == 0) {   // a long string, as a typo in a generated file would make
    const char fill[] = {'a', '9', 'Z', ' ', '[', '\xC3'};
    std::string s(1 + below(40000), fill[below(sizeof fill)]);
    if (s.back() == '\xC3') s += '\xA9';
    return s;
  }
  return extremes()[below(extremes().size())];
}

std::string Mutator::schema_key() {
  const auto& paths = schema::all_paths();
  std::string p = paths[below(paths.size())];
  const auto dot = p.find_last_of('.');
  if (dot != std::string::npos) p = p.substr(dot + 1);
  if (const auto b = p.find("[]"); b != std::string::npos) p.erase(b, 2);
  return p;
}

std::vector<std::string> Mutator::next_overrides() {
  std::vector<std::string> out;
  if (below(5) != 0) return out;
  const auto& paths = schema::all_paths();
  const std::size_t n = 1 + below(2);
  for (std::size_t i = 0; i < n; ++i) {
    std::string p = paths[below(paths.size())];
    if (below(10) == 0) p += ".x";
    out.push_back(p + "=" + extreme_value());
  }
  return out;
}

void Mutator::mutate_once(std::string& s) {
  auto lines = split_lines(s);
  switch (below(16)) {
    case 0:   // flip a bit
      if (!s.empty()) s[below(s.size())] ^= static_cast<char>(1u << below(8));
      return;
    case 1: {   // insert a byte (printable most of the time)
      const char c = below(4) == 0 ? static_cast<char>(below(256)) : static_cast<char>(' ' + below(95));
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(below(s.size() + 1)), c);
      return;
    }
    case 2: {   // delete a span
      if (s.empty()) return;
      const std::size_t at = below(s.size());
      s.erase(at, 1 + below(16));
      return;
    }
    case 3: {   // repeat a span
      if (s.empty()) return;
      const std::size_t at = below(s.size());
      const std::string span = s.substr(at, 1 + below(64));
      s.insert(at, span);
      return;
    }
    case 4: {   // splice: this file's head, another file's tail
      const std::string& other = corpus_[below(corpus_.size())];
      s = s.substr(0, below(s.size() + 1)) + other.substr(below(other.size() + 1));
      return;
    }
    case 5:   // insert a YAML token
      s.insert(below(s.size() + 1), tokens()[below(tokens().size())]);
      return;
    default:
      break;
  }
  if (lines.empty()) lines.push_back("name: x");
  const std::size_t li = below(lines.size());
  std::string& line = lines[li];
  const auto colon = line.find(": ");
  switch (below(9)) {
    case 0:
    case 1:
    case 2:   // replace the value of a key: value line
      if (colon != std::string::npos) line = line.substr(0, colon + 2) + extreme_value();
      else line += ": " + extreme_value();
      break;
    case 3:   // drop the line
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(li));
      break;
    case 4:   // repeat the line
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(li), line);
      break;
    case 5:   // re-indent
      if (below(2) == 0) line = "  " + line;
      else if (line.rfind("  ", 0) == 0) line = line.substr(2);
      break;
    case 6: {   // insert a schema key with an extreme value, indented like this line
      const std::size_t indent = line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' ');
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(li),
                   std::string(indent, ' ') + schema_key() + ": " + extreme_value());
      break;
    }
    case 7:   // rename the key
      if (colon != std::string::npos) {
        const std::size_t indent = line.find_first_not_of(' ');
        line = std::string(indent == std::string::npos ? 0 : indent, ' ') + schema_key() + line.substr(colon);
      }
      break;
    default:   // swap with another line
      std::swap(line, lines[below(lines.size())]);
      break;
  }
  s = join_lines(lines);
}

std::string Mutator::next() {
  std::string s = corpus_[below(corpus_.size())];
  const std::size_t n = below(2) == 0 ? 1 : 1 + below(4);   // one edit half the time: more inputs stay valid
  for (std::size_t i = 0; i < n; ++i) mutate_once(s);
  if (s.size() > kMaxInputBytes) s.resize(kMaxInputBytes);
  return s;
}

}  // namespace hcpsim::fuzz
