#pragma once
// The "step N" label and slider that sit above a step view (ring steps, HyperParallel steps), kept in
// step with the view both ways: moving the slider sets the view's step, and a step chosen in the view
// (keys, clicks) moves the slider and the label.
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QVBoxLayout>
#include <QWidget>

namespace hcpsim::gui {

class StepSlider {
 public:
  // Lays out `panel` as the label and slider above `view`, and connects them. `View` has a slot
  // set_step(int) and a signal step_changed(int).
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
  }

  // After the view got new content: `step_count` steps, the view at `step`.
  void reset(int step_count, int step) {
    slider_->setRange(0, step_count - 1);
    show_step(step);
  }

 private:
  void show_step(int s) {
    slider_->setValue(s);
    label_->setText(QWidget::tr("step %1").arg(s));
  }

  QSlider* slider_ = nullptr;
  QLabel* label_ = nullptr;
};

}  // namespace hcpsim::gui
