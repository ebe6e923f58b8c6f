#pragma once
// The summary of the current prediction: headline figures (each with its definition as a tooltip),
// a memory bar of the breakdown against the GPU's capacity, and exposed communication by group.
#include <QWidget>

#include "gui/models/summary_model.h"

class QGridLayout;
class QLabel;

namespace hcpsim::gui {

class MemoryBar;   // the memory breakdown's bar (summary_view.cpp)

class SummaryView : public QWidget {
  Q_OBJECT
 public:
  explicit SummaryView(QWidget* parent = nullptr);
  void set_summary(const Summary& s);
  const Summary& summary() const { return s_; }
  // The text shown for a figure ("" when not shown); for tests.
  QString figure_text(const char* key) const;

 private:
  void add_rows(QGridLayout* grid, const std::vector<SummaryFigure>& figures);
  Summary s_;
  QLabel* title_;
  QLabel* verdict_;
  QWidget* figures_;
  QWidget* exposed_;
  MemoryBar* bar_;
};

}  // namespace hcpsim::gui
