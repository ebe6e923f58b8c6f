#pragma once
// Seeded mutations of scenario text for the fuzz driver: byte edits (flip, insert, delete, repeat,
// splice with another corpus file) and YAML-aware edits of whole lines (a value replaced by an
// extreme number, a unit at the edge of a double, a long string; keys renamed, lines repeated,
// dropped or re-indented; schema keys inserted). Same seed, same corpus: same inputs.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace hcpsim::fuzz {

class Mutator {
 public:
  Mutator(std::vector<std::string> corpus, std::uint64_t seed);

  // One input: a corpus file with 1-4 mutations stacked, at most kMaxInputBytes long.
  std::string next();
  // Zero to two `key.path=value` overrides with extreme values (empty most of the time).
  std::vector<std::string> next_overrides();

  static constexpr std::size_t kMaxInputBytes = 256 * 1024;

 private:
  void mutate_once(std::string& s);
  std::string extreme_value();
  std::string schema_key();
  std::size_t below(std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  std::vector<std::string> corpus_;
  std::mt19937_64 rng_;
};

}  // namespace hcpsim::fuzz
