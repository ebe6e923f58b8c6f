#include "gui/views/summary_view.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/charts/colors.h"
#include "gui/models/figure_definitions.h"

namespace hcpsim::gui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

void clear_layout(QLayout* l) {
  while (QLayoutItem* it = l->takeAt(0)) {
    delete it->widget();
    delete it;
  }
}

}  // namespace

// One horizontal bar: the memory items stacked, a line at the capacity.
class MemoryBar : public QWidget {
 public:
  explicit MemoryBar(QWidget* parent = nullptr);
  void set_summary(const Summary& s);
  QSize sizeHint() const override { return {600, 90}; }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  Summary s_;
};

MemoryBar::MemoryBar(QWidget* parent) : QWidget(parent) { setMinimumHeight(90); }

void MemoryBar::set_summary(const Summary& s) {
  s_ = s;
  QStringList tip;
  for (const auto& m : s_.memory) tip << QStringLiteral("%1: %2 GiB").arg(m.name).arg(m.bytes / kGiB, 0, 'f', 2);
  setToolTip(figure_tooltip("memory.peak_bytes_per_gpu") + "\n" + tip.join('\n'));
  update();
}

void MemoryBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  if (!s_.has_memory) return;
  const double full = std::max(s_.capacity_bytes, s_.peak_bytes);
  if (full <= 0) return;
  const QRectF bar(8, 8, width() - 16, 28);
  auto x_of = [&](double bytes) { return bar.left() + bar.width() * bytes / full; };
  double at = 0;
  int legend_x = 8;
  for (std::size_t i = 0; i < s_.memory.size(); ++i) {
    const auto& m = s_.memory[i];
    const QColor c = group_index_color(static_cast<int>(i));
    p.fillRect(QRectF(x_of(at), bar.top(), x_of(at + m.bytes) - x_of(at), bar.height()), c);
    at += m.bytes;
    const QString text = QStringLiteral("%1 %2 GiB").arg(m.name).arg(m.bytes / kGiB, 0, 'f', 1);
    p.fillRect(QRectF(legend_x, bar.bottom() + 10, 10, 10), c);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QPointF(legend_x + 14, bar.bottom() + 20), text);
    legend_x += 24 + p.fontMetrics().horizontalAdvance(text);
  }
  p.setPen(QPen(Qt::black, 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar);
  const double cap = x_of(s_.capacity_bytes);
  p.setPen(QPen(s_.fits() ? QColor(0x20, 0x80, 0x20) : QColor(0xc0, 0x20, 0x20), 3));
  p.drawLine(QPointF(cap, bar.top() - 6), QPointF(cap, bar.bottom() + 6));
  p.drawText(QPointF(std::min(cap + 4, width() - 150.0), bar.bottom() + 40),
             tr("capacity %1 GiB").arg(s_.capacity_bytes / kGiB, 0, 'f', 1));
}

SummaryView::SummaryView(QWidget* parent) : QWidget(parent) {
  auto* v = new QVBoxLayout(this);
  title_ = new QLabel(tr("No prediction yet: Run ▸ Simulate."), this);
  QFont big = title_->font();
  big.setPointSizeF(big.pointSizeF() * 1.3);
  big.setBold(true);
  title_->setFont(big);
  verdict_ = new QLabel(this);
  v->addWidget(title_);
  v->addWidget(verdict_);
  // A titled box below the others, holding `inner`.
  auto add_box = [this, v](const QString& title, QLayout* inner) {
    auto* box = new QGroupBox(title, this);
    box->setLayout(inner);
    v->addWidget(box);
    return box;
  };
  figures_ = add_box(tr("The step"), new QGridLayout);
  auto* mv = new QVBoxLayout;
  bar_ = new MemoryBar(add_box(tr("Memory per GPU"), mv));
  mv->addWidget(bar_);
  exposed_ = add_box(tr("Exposed communication by group"), new QGridLayout);
  v->addStretch(1);
}

void SummaryView::add_rows(QGridLayout* grid, const std::vector<SummaryFigure>& figures) {
  clear_layout(grid);
  int row = 0;
  for (const auto& f : figures) {
    const FigureDefinition& d = figure(f.key);
    auto* name = new QLabel(QString::fromUtf8(d.label), grid->parentWidget());
    auto* value = new QLabel(f.text, grid->parentWidget());
    value->setObjectName(QStringLiteral("summary.") + QString::fromLatin1(f.key));
    QFont b = value->font();
    b.setBold(true);
    value->setFont(b);
    name->setToolTip(figure_tooltip(f.key));
    value->setToolTip(figure_tooltip(f.key));
    grid->addWidget(name, row, 0);
    grid->addWidget(value, row, 1);
    ++row;
  }
  grid->setColumnStretch(2, 1);
}

void SummaryView::set_summary(const Summary& s) {
  s_ = s;
  title_->setText(tr("%1 — %2 backend").arg(s.scenario, s.backend));
  QString verdict;
  if (!s.has_step) verdict = tr("No whole step: the batch or pipeline sizes do not divide (see the scenario's diagnostics).");
  if (s.has_memory)
    verdict += (verdict.isEmpty() ? "" : "  ") +
               (s.fits() ? tr("Fits: %1 GiB to spare per GPU.").arg((s.capacity_bytes - s.peak_bytes) / kGiB, 0, 'f', 1)
                         : tr("Does not fit: %1 GiB over capacity per GPU.").arg((s.peak_bytes - s.capacity_bytes) / kGiB, 0, 'f', 1));
  verdict_->setText(verdict);
  verdict_->setStyleSheet(s.has_memory && !s.fits() ? "color: #b01818;" : "color: #206020;");
  add_rows(static_cast<QGridLayout*>(figures_->layout()), s.headline);
  add_rows(static_cast<QGridLayout*>(exposed_->layout()), s.exposed);
  bar_->set_summary(s);
}

QString SummaryView::figure_text(const char* key) const {
  auto* l = findChild<QLabel*>(QStringLiteral("summary.") + QString::fromLatin1(key));
  return l ? l->text() : QString();
}

}  // namespace hcpsim::gui
