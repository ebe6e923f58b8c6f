// Chart data of a sweep: x from the first axis, one series per value of the other axes.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/planning/sweep_chart.h"

namespace hcpsim::planning {
namespace {

PointResult row(std::string cp, std::string layout, double step, PointStatus st = PointStatus::Ok) {
  PointResult r;
  r.labels = {std::move(cp), std::move(layout)};
  r.status = st;
  r.metrics.step_s = step;
  return r;
}

TEST(SweepChart, OneSeriesPerSecondAxisSortedByX) {
  const std::vector<PointResult> rs{row("16", "p2p", 3), row("2", "p2p", 1), row("64", "p2p", 9),
                                    row("16", "hcp A=8", 2), row("8", "a2a", 0.5, PointStatus::Invalid)};
  const ChartData c = make_chart(rs, {"cp", "layout"}, "step_s", "t");
  ASSERT_EQ(c.series.size(), 2u);   // the invalid a2a point is not drawn
  EXPECT_EQ(c.series[0].name, "p2p");
  EXPECT_EQ(c.series[0].x, (std::vector<double>{2, 16, 64}));
  EXPECT_EQ(c.series[0].y, (std::vector<double>{1, 3, 9}));
  EXPECT_EQ(c.series[1].name, "hcp A=8");
  EXPECT_TRUE(c.numeric_x);
  EXPECT_TRUE(c.log2_x);   // 2..64 spans a factor 32
  EXPECT_EQ(c.x_label, "cp");
}

TEST(SweepChart, CategoriesWhenTheFirstAxisIsNotNumeric) {
  const std::vector<PointResult> rs{row("[2,4]", "x", 1), row("[4,2]", "x", 2)};
  const ChartData c = make_chart(rs, {"split", "l"}, "step_s", "t");
  EXPECT_FALSE(c.numeric_x);
  EXPECT_EQ(c.categories, (std::vector<std::string>{"[2,4]", "[4,2]"}));
  EXPECT_EQ(c.series[0].x, (std::vector<double>{0, 1}));
  EXPECT_THROW(make_chart(rs, {}, "step_s", "t"), std::invalid_argument);
  EXPECT_THROW(make_chart(rs, {"split", "l"}, "nope", "t"), std::invalid_argument);
}

}  // namespace
}  // namespace hcpsim::planning
