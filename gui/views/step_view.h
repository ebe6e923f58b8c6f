#pragma once
// What the schedule step views (ring steps, HyperParallel steps) share: the step shown, kept inside
// the model's steps, and the signal the step slider (step_slider.h) follows.
#include <QWidget>

namespace hcpsim::gui {

class StepView : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  int step() const { return step_; }
  void set_step(int step);   // clamped to the steps; ignored while there is no model

 signals:
  void step_changed(int step);

 protected:
  // Steps of the model shown; 0 while there is none.
  virtual int step_count() const = 0;
  // After a new model: the step kept inside its steps, and a repaint.
  void model_changed();

 private:
  int step_ = 0;
};

}  // namespace hcpsim::gui
