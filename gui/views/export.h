#pragma once
// PNG and SVG export of any view: the file suffix picks the format.
#include <QString>

class QWidget;

namespace hcpsim::gui {

// Renders `w` at its current size into `path` (.png or .svg). Returns false and sets *error (when
// non-null) naming the file on failure or on an unknown suffix.
bool export_widget(QWidget* w, const QString& path, QString* error = nullptr);

}  // namespace hcpsim::gui
