#include "gui/views/export.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

#include "gui/charts/colors.h"

namespace hcpsim::gui {

bool export_widget(QWidget* w, const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const QSize size = w->size();
  if (suffix == "png") {
    QImage img(size, QImage::Format_ARGB32);
    img.fill(background_color());
    {
      QPainter p(&img);
      w->render(&p);
    }
    if (!img.save(path, "PNG")) {
      if (error) *error = path + ": cannot write PNG";
      return false;
    }
    return true;
  }
  if (suffix == "svg") {
    QSvgGenerator gen;
    gen.setFileName(path);
    gen.setSize(size);
    gen.setViewBox(QRect(QPoint(0, 0), size));
    gen.setTitle(w->windowTitle().isEmpty() ? QStringLiteral("hcpsim") : w->windowTitle());
    gen.setDescription(QStringLiteral("Rendered by hcpsim-gui"));
    QPainter p;
    if (!p.begin(&gen)) {
      if (error) *error = path + ": cannot write SVG";
      return false;
    }
    p.fillRect(QRect(QPoint(0, 0), size), background_color());
    w->render(&p);
    p.end();
    return QFileInfo(path).size() > 0;
  }
  if (error) *error = path + ": unknown image type '" + suffix + "' (valid: png, svg)";
  return false;
}

}  // namespace hcpsim::gui
