#pragma once
// What the schedule step views (ring steps, HyperParallel steps) share: the step model shown, the
// step shown, kept inside the model's steps, and the signals the step slider (step_slider.h) follows.
#include <QWidget>
#include <memory>

namespace hcpsim::gui {

class StepView : public QWidget {
  Q_OBJECT
 public:
  using QWidget::QWidget;
  int step() const { return step_; }
  void set_step(int step);   // clamped to the steps; ignored while there is no model

 signals:
  void step_changed(int step);
  // A new model: its number of steps, and the step kept inside them.
  void steps_changed(int step_count, int step);

 protected:
  // Steps of the model shown; 0 while there is none.
  virtual int step_count() const = 0;
  // After a new model: the step kept inside its steps, a repaint, and steps_changed.
  void model_changed();

 private:
  int step_ = 0;
};

// A step view of one kind of step model (`Model` answers step_count()).
template <class Model>
class ModelStepView : public StepView {
 public:
  using StepView::StepView;
  const Model* model() const { return model_.get(); }

 protected:
  // Shows `model` from now on (model_changed follows).
  void show_model(std::unique_ptr<Model> model) {
    model_ = std::move(model);
    model_changed();
  }
  int step_count() const override { return model_ ? model_->step_count() : 0; }

  std::unique_ptr<Model> model_;
};

}  // namespace hcpsim::gui
