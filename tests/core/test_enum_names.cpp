// The enum name tables (engine/core/enum_names.h) and the enums that use them: every name prints and
// parses back to its value, and a bad name is an error naming the field and every valid name.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "engine/core/enum_names.h"
#include "engine/core/units.h"
#include "engine/graph/task_graph.h"
#include "engine/memory/memory_model.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {
namespace {

enum class Colour { Red, Green, Blue };
constexpr auto kColourNames =
    std::to_array<EnumName<Colour>>({{Colour::Red, "red"}, {Colour::Green, "green"}, {Colour::Blue, "blue"}});

TEST(EnumNames, NamesAndValuesRoundTrip) {
  for (const auto& entry : kColourNames) {
    EXPECT_STREQ(name_of(kColourNames, entry.value), entry.name);
    EXPECT_EQ(find_value(kColourNames, entry.name), entry.value);
    EXPECT_EQ(parse_enum(kColourNames, entry.name, "colour"), entry.value);
  }
  EXPECT_EQ(names_list(kColourNames), "red, green, blue");
  EXPECT_EQ(names_list(kColourNames, " | "), "red | green | blue");
}

TEST(EnumNames, UnknownValueAndNameAreReported) {
  EXPECT_STREQ(name_of(kColourNames, static_cast<Colour>(7)), "?");
  EXPECT_FALSE(find_value(kColourNames, "Red").has_value());   // case-sensitive
  EXPECT_FALSE(find_value(kColourNames, "").has_value());
  try {
    parse_enum(kColourNames, "mauve", "colour");
    FAIL() << "parse_enum accepted 'mauve'";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "unknown colour 'mauve' (valid: red, green, blue)");
  }
}

TEST(EnumNames, ProjectEnumsPrintAndParseTheSameNames) {
  for (int i = 0; i < kTaskKindCount; ++i) {
    const auto k = static_cast<TaskKind>(i);
    TaskKind back{};
    ASSERT_TRUE(parse_task_kind(to_string(k), back)) << to_string(k);
    EXPECT_EQ(back, k);
  }
  for (int i = 0; i < kStreamCount; ++i) {
    const auto s = static_cast<Stream>(i);
    Stream back{};
    ASSERT_TRUE(parse_stream(to_string(s), back)) << to_string(s);
    EXPECT_EQ(back, s);
  }
  for (const Recompute r : {Recompute::None, Recompute::Selective, Recompute::Full})
    EXPECT_EQ(parse_recompute(to_string(r)), r);
  EXPECT_STREQ(to_string(CpCommType::A2AP2P), "a2a+p2p");
  EXPECT_STREQ(to_string(QuantityKind::Bandwidth), "bandwidth");
  TaskKind unused{};
  EXPECT_FALSE(parse_task_kind("attention", unused));
}

}  // namespace
}  // namespace hcpsim
