// GTest main for GUI tests: picks the offscreen platform when there is no display (also during
// gtest_discover_tests' --gtest_list_tests run, which does not get the test ENVIRONMENT), then
// creates the QApplication every widget needs.
#include <QApplication>
#include <cstdlib>
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
