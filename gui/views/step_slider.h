#pragma once
// The "step N" label and slider that sit above a step view (ring steps, HyperParallel steps), kept in
// step with the view both ways: moving the slider sets the view's step, a step chosen in the view
// (keys, clicks) moves the slider and the label, and a new model in the view sets the slider's range.
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <QWidget>

namespace hcpsim::gui {

class StepSlider {
 public:
  // Lays out `panel` as the label and slider above `view`, and connects them. `View` has a slot
  // set_step(int) and signals step_changed(int) and steps_changed(int step_count, int step).
  template <class View>
  StepSlider(QWidget* panel, View* view) {
    auto* v = new QVBoxLayout(panel);
    auto* h = new QHBoxLayout;
    label_ = new QLabel(QWidget::tr("step"), panel);
    slider_ = new QSlider(Qt::Horizontal, panel);
    slider_->setRange(0, 0);
    h->addWidget(label_);
    h->addWidget(slider_, 1);
    v->addLayout(h);
    v->addWidget(view, 1);
    QObject::connect(slider_, &QSlider::valueChanged, view, &View::set_step);
    QObject::connect(view, &View::step_changed, panel, [this](int s) { show_step(s); });
    QObject::connect(view, &View::steps_changed, panel, [this](int count, int s) { reset(count, s); });
  }

 private:
  // After the view got new content: `step_count` steps, the view at `step`.
  void reset(int step_count, int step) {
    slider_->setRange(0, step_count - 1);
    show_step(step);
  }

  void show_step(int s) {
    slider_->setValue(s);
    label_->setText(QWidget::tr("step %1").arg(s));
  }

  QSlider* slider_ = nullptr;
  QLabel* label_ = nullptr;
};

}  // namespace hcpsim::gui
