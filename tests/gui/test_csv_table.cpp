// CSV parsing and sweep-chart series on tests/gui/data/sweep.csv (values chosen by hand).
#include <gtest/gtest.h>

#include "gui/charts/csv_table.h"

using namespace hcpsim::gui;

namespace {

TEST(CsvTable, ParsesQuotedFieldsAndGuessesColumns) {
  const auto t = load_csv(HCPSIM_GUI_TEST_DATA "/sweep.csv");
  ASSERT_EQ(t.header.size(), 5);
  ASSERT_EQ(t.rows.size(), 6u);
  EXPECT_EQ(t.rows[2][4], "fits, barely");
  EXPECT_TRUE(t.numeric(1));
  EXPECT_TRUE(t.numeric(3));    // the empty cell is skipped
  EXPECT_FALSE(t.numeric(2));
  const auto c = guess_chart_columns(t);
  EXPECT_EQ(c.x, 1);
  EXPECT_EQ(c.y, 3);
  EXPECT_EQ(c.series, 2);
  const auto s = chart_series(t, c);
  ASSERT_EQ(s.size(), 2u);
  ASSERT_EQ(s.at("p2p").size(), 3u);
  EXPECT_DOUBLE_EQ(s.at("p2p")[2].x(), 8);
  EXPECT_DOUBLE_EQ(s.at("p2p")[2].y(), 0.0018);
  EXPECT_EQ(s.at("a2a").size(), 2u);   // cp=8 a2a has no time
}

TEST(CsvTable, ExplicitColumnsWin) {
  const auto t = parse_csv("a,b,c\n1,2,3\n2,4,6\n");
  const auto c = guess_chart_columns(t, "b", "c");
  EXPECT_EQ(c.x, 1);
  EXPECT_EQ(c.y, 2);
  EXPECT_EQ(c.series, -1);
  const auto s = chart_series(t, c);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s.begin()->first, "c");
  EXPECT_DOUBLE_EQ(s.begin()->second[1].y(), 6);
}

TEST(CsvTable, MalformedInputNamesLine) {
  try {
    parse_csv("a,b\n1,2\n1,2,3\n", "s.csv");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("s.csv:3"), std::string::npos);
  }
  EXPECT_THROW(parse_csv("a,b\n\"1,2\n"), std::runtime_error);
  EXPECT_THROW(parse_csv("\n\n"), std::runtime_error);
}

}  // namespace
