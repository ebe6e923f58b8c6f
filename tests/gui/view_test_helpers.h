#pragma once
// Pictures for the view tests: pixels of one colour, the share that is not background, and a
// screenshot rendered to a file and read back (HCPSIM_GUI_SHOT_DIR keeps them for a look).
#include <gtest/gtest.h>

#include <QImage>
#include <QTemporaryDir>

#include "gui/charts/colors.h"
#include "gui/views/screenshot.h"

namespace hcpsim::gui {

inline int count_color(const QImage& img, QColor c) {
  const QRgb want = c.rgb();
  int n = 0;
  for (int y = 0; y < img.height(); ++y) {
    const QRgb* line = reinterpret_cast<const QRgb*>(img.constScanLine(y));
    for (int x = 0; x < img.width(); ++x) n += (line[x] & 0xffffff) == (want & 0xffffff);
  }
  return n;
}

inline double non_background_fraction(const QImage& img) {
  return 1.0 - static_cast<double>(count_color(img, background_color())) / (img.width() * img.height());
}

// Set HCPSIM_GUI_SHOT_DIR to keep the pictures for a look.
inline QImage shoot(ScreenshotRequest r, const Scenario* s, const QTemporaryDir& dir) {
  const QString keep = qEnvironmentVariable("HCPSIM_GUI_SHOT_DIR");
  static int n = 0;
  r.out = keep.isEmpty() ? dir.filePath(r.view + ".png") : keep + QStringLiteral("/%1-%2.png").arg(r.view).arg(n++);
  QString err;
  EXPECT_TRUE(render_screenshot(r, s, &err)) << err.toStdString();
  QImage img(r.out);
  return img.convertToFormat(QImage::Format_RGB32);
}

}  // namespace hcpsim::gui
