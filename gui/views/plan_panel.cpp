#include "gui/views/plan_panel.h"

#include <QChartView>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QTableWidget>
#include <QTabWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "engine/app/plan_run.h"
#include "engine/layout/rank_layout.h"
#include "gui/models/figure_definitions.h"
#include "gui/models/prediction.h"
#include "gui/views/background_job.h"
#include "gui/views/layout_view.h"
#include "gui/views/timeline_view.h"

namespace hcpsim::gui {

PlanPanel::PlanPanel(QWidget* parent)
    : RunPanel(parent, tr("Plan"), tr("Plan the current scenario's model on N GPUs (the planner of `hcpsim plan`)."),
               tr("cancelling after the prediction that runs…")) {
  model_ = new PlanTableModel(this);
  filter_ = new PlanFilterModel(this);
  filter_->setSourceModel(model_);
  timeline_job_ = new BackgroundJob(this);
  build_controls();
}

void PlanPanel::build_controls() {
  auto* v = new QVBoxLayout(this);
  auto* bar = new QHBoxLayout;
  gpus_ = new QSpinBox(this);
  gpus_->setRange(1, 1 << 20);
  gpus_->setObjectName("plan.gpus");
  top_ = new QSpinBox(this);
  top_->setRange(1, 100000);
  top_->setValue(200);
  top_->setObjectName("plan.top");
  bar->addWidget(new QLabel(tr("GPUs"), this));
  bar->addWidget(gpus_);
  bar->addWidget(new QLabel(tr("keep best"), this));
  bar->addWidget(top_);
  bar->addWidget(run_button());
  bar->addWidget(cancel_button());
  bar->addWidget(this->bar(), 1);
  v->addLayout(bar);
  v->addWidget(status());
  auto* filters = new QHBoxLayout;
  text_filter_ = new QLineEdit(this);
  text_filter_->setPlaceholderText(tr("layout contains… (e.g. a2a, pp=2)"));
  max_memory_ = new QDoubleSpinBox(this);
  max_memory_->setRange(0, 1e6);
  max_memory_->setSuffix(tr(" GiB"));
  max_memory_->setSpecialValueText(tr("any memory"));
  auto* pin_a = new QPushButton(tr("Pin as A"), this);
  auto* pin_b = new QPushButton(tr("Pin as B"), this);
  filters->addWidget(new QLabel(tr("filter"), this));
  filters->addWidget(text_filter_, 1);
  filters->addWidget(new QLabel(tr("memory per GPU at most"), this));
  filters->addWidget(max_memory_);
  filters->addWidget(pin_a);
  filters->addWidget(pin_b);
  v->addLayout(filters);
  auto* split = new QSplitter(this);
  table_ = new QTableView(split);
  table_->setModel(filter_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(PlanTableModel::Rank, Qt::AscendingOrder);   // the planner's ranking first
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  details_ = new QTabWidget(split);
  chart_ = new QChartView(details_);
  chart_->setRenderHint(QPainter::Antialiasing);
  layout_ = new LayoutView(details_);
  timeline_ = new TimelineView(details_);
  compare_ = new QTableWidget(details_);
  compare_->setColumnCount(4);
  compare_->setHorizontalHeaderLabels({tr("figure"), tr("A"), tr("B"), tr("B − A")});
  compare_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  details_->addTab(chart_, tr("chart"));
  details_->addTab(layout_, tr("layout"));
  details_->addTab(timeline_, tr("timeline"));
  details_->addTab(compare_, tr("compare"));
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);
  split->setSizes({780, 520});   // the table's figures visible beside the chart
  v->addWidget(split, 1);
  connect(text_filter_, &QLineEdit::textChanged, filter_, &PlanFilterModel::set_layout_text);
  connect(max_memory_, &QDoubleSpinBox::valueChanged, filter_, &PlanFilterModel::set_max_memory_gib);
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& i) { select_row(i.row()); });
  connect(pin_a, &QPushButton::clicked, this, [this] { pin(0); });
  connect(pin_b, &QPushButton::clicked, this, [this] { pin(1); });
}

void PlanPanel::set_scenario(std::shared_ptr<const Scenario> s) {
  base_ = std::move(s);
  if (base_ && !running()) gpus_->setValue(base_->world_size());
}

void PlanPanel::set_gpus(int gpus) { gpus_->setValue(gpus); }

bool PlanPanel::start() {
  if (!base_ || running()) return false;
  planning::PlanOptions options = plan_view_options(gpus_->value(), top_->value());
  options.progress = [show = progress()](std::size_t done, std::size_t total, std::size_t predicted) {
    show(done, total, predicted == 0 ? tr("%1 of %2 layouts checked").arg(done).arg(total)
                                     : tr("%1 fitting layouts predicted").arg(predicted));
  };
  auto result = std::make_shared<planning::PlanOutcome>();
  const auto base = base_;
  const double capacity = base_->cluster.gpu.memory_bytes / (1024.0 * 1024.0 * 1024.0);
  return start_work(
      tr("planning…"),
      [result, base, options](const std::atomic<bool>* cancel) { *result = app::plan_layouts(*base, options, "", cancel); },
      [this, result, capacity] { set_outcome(std::move(*result), capacity); });
}

void PlanPanel::set_outcome(planning::PlanOutcome out, double capacity_gib) {
  capacity_gib_ = capacity_gib;
  pinned_[0] = pinned_[1] = -1;
  compare_->setRowCount(0);
  const QString counts = tr("%1 layouts: %2 invalid, %3 out of memory (the %4 closest in the chart), %5 failed; ranked by %6")
                             .arg(out.enumerated).arg(out.invalid).arg(out.out_of_memory).arg(out.closest_misses.size())
                             .arg(out.failed).arg(QString::fromStdString(out.metric));
  model_->set_outcome(std::move(out));
  show_done(counts);
  fill_chart();
  if (filter_->rowCount() > 0) select_row(0);
}

void PlanPanel::fill_chart() {
  auto* chart = new QChart;
  chart->setTitle(tr("tokens/s per GPU against memory per GPU"));
  auto* fits = new QScatterSeries(chart);
  fits->setName(tr("fits"));
  auto* over = new QScatterSeries(chart);
  over->setName(tr("does not fit"));
  over->setColor(QColor(0xc0, 0x30, 0x30));
  double max_x = capacity_gib_, max_y = 0;
  const PlanChartPoints points = plan_chart_points(model_->outcome());
  for (auto [series, list] : {std::pair{fits, &points.fits}, std::pair{over, &points.over}})
    for (const QPointF& p : *list) {
      series->append(p);
      max_x = std::max(max_x, p.x());
      max_y = std::max(max_y, p.y());
    }
  auto* capacity = new QLineSeries(chart);
  capacity->setName(tr("GPU capacity"));
  capacity->append(capacity_gib_, 0);
  capacity->append(capacity_gib_, max_y * 1.1);
  for (auto* s : std::initializer_list<QAbstractSeries*>{fits, over, capacity}) chart->addSeries(s);
  auto* ax = new QValueAxis(chart);
  ax->setTitleText(tr("memory per GPU (GiB)"));
  ax->setRange(0, max_x * 1.1 + 1);
  auto* ay = new QValueAxis(chart);
  ay->setTitleText(tr("tokens/s per GPU"));
  ay->setRange(0, max_y * 1.1 + 1);
  chart->addAxis(ax, Qt::AlignBottom);
  chart->addAxis(ay, Qt::AlignLeft);
  for (auto* s : chart->series()) {
    s->attachAxis(ax);
    s->attachAxis(ay);
  }
  QChart* old = chart_->chart();
  chart_->setChart(chart);
  delete old;
  chart_->setToolTip(tr("fits: the ranked layouts; does not fit: the valid layouts nearest to fitting, least memory first.") +
                     "\n" + figure_tooltip("step.tokens_per_s_per_gpu") + "\n" + figure_tooltip("memory.peak_bytes_per_gpu"));
}

void PlanPanel::select_row(int row) {
  const QModelIndex src = filter_->mapToSource(filter_->index(row, 0));
  const planning::PlanEntry* e = model_->entry(src.row());
  if (!e) return;
  table_->selectRow(row);
  try {
    layout_->set_layout(std::make_shared<const RankLayout>(RankLayout::from_scenario(e->scenario)));
  } catch (const std::exception& ex) {
    set_status(QString::fromUtf8(ex.what()));
  }
  if (timeline_job_->running()) return;   // the next pick draws again
  auto trace = std::make_shared<Trace>();
  const Scenario s = e->scenario;
  disconnect(timeline_job_, &BackgroundJob::finished, this, nullptr);
  connect(timeline_job_, &BackgroundJob::finished, this, [this, trace](const QString& error) {
    if (error.isEmpty()) timeline_->set_traces(from_engine_trace(*trace));
    else set_status(error);
  });
  timeline_job_->start([trace, s] { *trace = default_predictor().predict(s, "analytic").trace; });
}

void PlanPanel::pin(int slot) {
  const QModelIndexList rows = table_->selectionModel() ? table_->selectionModel()->selectedRows() : QModelIndexList{};
  if (rows.isEmpty() || slot < 0 || slot > 1) return;
  pinned_[slot] = filter_->mapToSource(rows.first()).row();
  fill_compare();
}

void PlanPanel::fill_compare() {
  const planning::PlanEntry* a = model_->entry(pinned_[0]);
  const planning::PlanEntry* b = model_->entry(pinned_[1]);
  if (!a || !b) return;
  const std::vector<CompareRow> rows = compare_entries(*a, *b);
  compare_->setRowCount(static_cast<int>(rows.size()));
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    const CompareRow& r = rows[static_cast<std::size_t>(i)];
    int c = 0;
    for (const QString& t : {r.figure, r.a, r.b, r.difference}) compare_->setItem(i, c++, new QTableWidgetItem(t));
  }
  details_->setCurrentWidget(compare_);
}

}  // namespace hcpsim::gui
