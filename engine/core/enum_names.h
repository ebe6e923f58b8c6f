#pragma once
// Names of enum values, written once per enum as a table of {value, name}: printing (name_of),
// looking up (find_value) and strict parsing (parse_enum: the error names the field and lists every
// valid name) all read that one table, so the names an enum prints and the names it accepts cannot
// drift apart.
//
//   constexpr auto kStatusNames = std::to_array<EnumName<PointStatus>>(
//       {{PointStatus::Ok, "ok"}, {PointStatus::Invalid, "invalid"}, {PointStatus::Error, "error"}});
//   name_of(kStatusNames, PointStatus::Ok)          -> "ok"
//   parse_enum(kStatusNames, "bad", "status")       -> throws "unknown status 'bad' (valid: ok, invalid, error)"
#include <array>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hcpsim {

template <typename E>
struct EnumName {
  E value;
  const char* name;
};

template <typename E, std::size_t N>
using EnumNames = std::array<EnumName<E>, N>;

// The name of `value`; "?" when the table lacks it (a value cast from a bad integer).
template <typename E, std::size_t N>
constexpr const char* name_of(const EnumNames<E, N>& table, E value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

// The value named `name` (exact, case-sensitive match), if any.
template <typename E, std::size_t N>
constexpr std::optional<E> find_value(const EnumNames<E, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (name == entry.name) return entry.value;
  return std::nullopt;
}

// Every name in table order, joined by `separator`: "none, selective, full".
template <typename E, std::size_t N>
std::string names_list(const EnumNames<E, N>& table, std::string_view separator = ", ") {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += separator;
    out += entry.name;
  }
  return out;
}

// The value named `name`; throws std::invalid_argument "unknown FIELD 'NAME' (valid: a, b, c)".
template <typename E, std::size_t N>
E parse_enum(const EnumNames<E, N>& table, std::string_view name, std::string_view field) {
  if (const auto v = find_value(table, name)) return *v;
  throw std::invalid_argument("unknown " + std::string(field) + " '" + std::string(name) +
                              "' (valid: " + names_list(table) + ")");
}

}  // namespace hcpsim
