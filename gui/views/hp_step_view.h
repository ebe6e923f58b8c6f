#pragma once
// HyperParallel step view: one CP group of a `hyperparallel:` scenario laid out as HyperParallel's
// (co, ds) mesh (rows: Colossal index, columns: Ulysses index), and the schedule's steps from the
// engine's task graph. At the chosen step the members' groups are outlined in their kind's colour
// (hp_ulysses all-to-alls, hp_colossal all-gathers / reduce-scatters, the head-tail exchange) and
// every message is an arrow; compute steps fill the members with their kernel (attention shape,
// indexer). The list on the right is the whole schedule, forward then backward, with the compute
// steps each collective overlaps (AsyncContextParallel).
#include <QWidget>
#include <memory>

#include "gui/models/hp_steps.h"
#include "gui/views/step_view.h"

namespace hcpsim::gui {

class HpStepView : public ModelStepView<HpStepModel> {
  Q_OBJECT
 public:
  explicit HpStepView(QWidget* parent = nullptr);
  // Throws std::invalid_argument (from HpStepModel) without a hyperparallel: section or with cp < 2.
  void set_scenario(const Scenario& s);
  QSize sizeHint() const override { return {1200, 760}; }
  // Cell of CP index i in widget coordinates.
  QRectF member_rect(int cp_index) const;
  // What the last paint drew: group outlines and message arrows of the current step, step rows listed.
  int drawn_groups() const { return drawn_groups_; }
  int drawn_messages() const { return drawn_messages_; }
  int drawn_step_rows() const { return drawn_step_rows_; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  void paint_mesh(class QPainter& p);
  void paint_step_list(class QPainter& p);
  int drawn_groups_ = 0, drawn_messages_ = 0, drawn_step_rows_ = 0;
};

}  // namespace hcpsim::gui
