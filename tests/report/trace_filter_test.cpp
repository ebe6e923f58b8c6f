#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/trace/trace_filter.h"

namespace hcpsim {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_index_ranges(text, "--trace-ranks");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(TraceFilter, ParsesNumbersAndRanges) {
  const IndexRanges r = parse_index_ranges("7,0,5-6,9-9", "--trace-ranks");
  EXPECT_EQ(r, (IndexRanges{{0, 0}, {5, 7}, {9, 9}}));   // sorted, adjacent ranges merged
  TraceFilter f;
  f.ranks = r;
  for (int x : {0, 5, 6, 7, 9}) EXPECT_TRUE(f.keeps_rank(x)) << x;
  for (int x : {1, 4, 8, 10}) EXPECT_FALSE(f.keeps_rank(x)) << x;
  f.layers = {{1, 1}};
  EXPECT_TRUE(f.keeps(5, 1));
  EXPECT_FALSE(f.keeps(5, 0));
  EXPECT_TRUE(TraceFilter{}.keeps(12345, 3));
}

TEST(TraceFilter, BadListsNameTheItemAndTheValidForm) {
  EXPECT_NE(error_of("0,5-x").find("'5-x'"), std::string::npos);
  EXPECT_NE(error_of("0,5-x").find("e.g. 0,5-7"), std::string::npos);
  EXPECT_NE(error_of("1,").find("''"), std::string::npos);
  EXPECT_NE(error_of("-3").find("'-3'"), std::string::npos);
  EXPECT_NE(error_of("7-5").find("ends before it starts"), std::string::npos);
  EXPECT_NE(error_of("").find("empty"), std::string::npos);
  EXPECT_EQ(error_of("0,5-7"), "no error");
}

TEST(TraceFilter, RangeLimitNamesTheValidValues) {
  const IndexRanges r = parse_index_ranges("0,15", "--trace-ranks");
  EXPECT_NO_THROW(require_below(r, 16, "--trace-ranks", "ranks"));
  try {
    require_below(r, 8, "--trace-ranks", "ranks");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("valid ranks are 0..7"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hcpsim
