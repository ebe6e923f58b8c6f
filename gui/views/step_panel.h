#pragma once
// A step view (ring steps, HyperParallel steps) with its step slider above it, as the main window
// shows it. The slider follows the view by itself (StepView's signals), so the panel forwards
// nothing: new content goes to view() directly.
#include <QWidget>

#include "gui/views/step_slider.h"

namespace hcpsim::gui {

template <class View>
class StepPanel : public QWidget {
 public:
  explicit StepPanel(QWidget* parent = nullptr) : QWidget(parent), view_(new View(this)), steps_(this, view_) {}
  View* view() const { return view_; }

 private:
  View* view_;
  StepSlider steps_;
};

}  // namespace hcpsim::gui
