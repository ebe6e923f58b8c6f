#pragma once
// Ring-step view (teaching): for one CP group, which chunks each rank holds at the chosen step, and
// the causal block matrix coloured by the ring position and step that computes each block. Blocks of
// later steps are drawn faded, so moving the step slider fills the matrix; the footer states whether
// every needed block is computed exactly once and how many blocks each position computes.
#include <QWidget>
#include <memory>

#include "gui/models/ring_steps.h"
#include "gui/views/step_view.h"

class QPainter;

namespace hcpsim::gui {

class RingStepView : public ModelStepView<RingStepModel> {
  Q_OBJECT
 public:
  explicit RingStepView(QWidget* parent = nullptr);
  // Throws std::invalid_argument (from RingStepModel) on impossible sizes.
  void set_params(const RingStepParams& p);
  QSize sizeHint() const override { return {1100, 640}; }
  // Matrix cell rectangle of block (q, k) in widget coordinates (for tests and hit-testing).
  QRectF block_rect(int q, int k) const;

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  void paint_header(QPainter& p) const;
  void paint_ranks(QPainter& p) const;
  void paint_matrix(QPainter& p) const;
  void paint_footer(QPainter& p) const;
};

}  // namespace hcpsim::gui
