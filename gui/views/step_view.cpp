#include "gui/views/step_view.h"

#include <algorithm>

namespace hcpsim::gui {

void StepView::set_step(int step) {
  if (step_count() == 0) return;
  step = std::clamp(step, 0, step_count() - 1);
  if (step == step_) return;
  step_ = step;
  update();
  emit step_changed(step_);
}

void StepView::model_changed() {
  step_ = std::clamp(step_, 0, step_count() - 1);
  update();
  emit steps_changed(step_count(), step_);
}

}  // namespace hcpsim::gui
