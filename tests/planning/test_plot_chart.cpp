// --plot renderer: a chart written offscreen as PNG and SVG (built only with Qt6 Charts).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/plot_chart.h"

namespace hcpsim::cli {
namespace {

namespace fs = std::filesystem;

planning::ChartData sample() {
  planning::ChartData c;
  c.title = "attention_s vs cp";
  c.x_label = "cp";
  c.y_label = "attention_s";
  c.log2_x = true;
  c.series.push_back({"p2p", {2, 4, 8}, {0.3, 0.2, 0.15}});
  c.series.push_back({"hcp A=4", {8, 16}, {0.12, 0.08}});
  return c;
}

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PlotChart, WritesPngAndSvgOffscreen) {
  ASSERT_TRUE(chart_rendering_available());
  const fs::path dir = fs::temp_directory_path() / ("hcpsim-plot-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  render_chart(sample(), (dir / "c.png").string());
  const std::string png = read_all(dir / "c.png");
  ASSERT_GT(png.size(), 1000u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  render_chart(sample(), (dir / "c.svg").string());
  const std::string svg = read_all(dir / "c.svg");
  EXPECT_NE(svg.find("<svg"), std::string::npos);
  EXPECT_NE(svg.find("<title>attention_s vs cp</title>"), std::string::npos);
  EXPECT_NE(svg.find("<path"), std::string::npos);   // Qt draws the text and lines as paths
  EXPECT_THROW(render_chart(sample(), (dir / "c.jpg").string()), std::runtime_error);
  if (!::testing::Test::HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace hcpsim::cli
