#pragma once
// Ring-step view (teaching): for one CP group, which chunks each rank holds at the chosen step, and
// the causal block matrix coloured by the ring position and step that computes each block. Blocks of
// later steps are drawn faded, so moving the step slider fills the matrix; the footer states whether
// every needed block is computed exactly once and how many blocks each position computes.
#include <QWidget>
#include <memory>

#include "gui/models/ring_steps.h"
#include "gui/views/step_slider.h"
#include "gui/views/step_view.h"

class QPainter;

namespace hcpsim::gui {

class RingStepView : public StepView {
  Q_OBJECT
 public:
  explicit RingStepView(QWidget* parent = nullptr);
  // Throws std::invalid_argument (from RingStepModel) on impossible sizes.
  void set_params(const RingStepParams& p);
  const RingStepModel* model() const { return model_.get(); }
  QSize sizeHint() const override { return {1100, 640}; }
  // Matrix cell rectangle of block (q, k) in widget coordinates (for tests and hit-testing).
  QRectF block_rect(int q, int k) const;

 protected:
  void paintEvent(QPaintEvent*) override;
  int step_count() const override { return model_ ? model_->steps() : 0; }

 private:
  void paint_header(QPainter& p) const;
  void paint_ranks(QPainter& p) const;
  void paint_matrix(QPainter& p) const;
  void paint_footer(QPainter& p) const;
  std::unique_ptr<RingStepModel> model_;
};

// The view with a step slider above it.
class RingStepPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RingStepPanel(QWidget* parent = nullptr);
  RingStepView* view() const { return view_; }
  void set_params(const RingStepParams& p);

 private:
  RingStepView* view_;
  StepSlider steps_;
};

}  // namespace hcpsim::gui
