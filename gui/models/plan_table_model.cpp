#include "gui/models/plan_table_model.h"

#include <algorithm>
#include <cmath>

#include "engine/planning/sweep_result.h"

namespace hcpsim::gui {
namespace {

double metric(const planning::PlanEntry& e, const char* name) { return planning::metric_value(e.result, name); }

QString number(double v, int precision) { return std::isnan(v) ? QStringLiteral("-") : QString::number(v, 'f', precision); }

}  // namespace

PlanTableModel::PlanTableModel(QObject* parent) : ResultTableModel(parent) {
  set_header({tr("#"), tr("layout"), tr("step time"), tr("tokens/s per GPU"), tr("MFU"), tr("memory per GPU (GiB)"),
              tr("bubble"), tr("exposed comm (layer)")});
}

void PlanTableModel::set_outcome(planning::PlanOutcome out) {
  beginResetModel();
  out_ = std::move(out);
  endResetModel();
}

const planning::PlanEntry* PlanTableModel::entry(int row) const {
  return row >= 0 && row < static_cast<int>(out_.best.size()) ? &out_.best[static_cast<std::size_t>(row)] : nullptr;
}

QVariant PlanTableModel::data(const QModelIndex& index, int role) const {
  const planning::PlanEntry* e = entry(index.row());
  if (!e) return {};
  if (role == Qt::ToolTipRole) return QString::fromStdString(e->explanation);
  double v = 0;
  QString text;
  switch (index.column()) {
    case Rank:   // a layout whose predicted range overlaps #1's within the model's error band is a tie with it
      v = index.row() + 1;
      text = QString::number(v) + (e->ties_best ? QStringLiteral(" (tie with #1)") : QString());
      break;
    case Layout:
      if (role == Qt::DisplayRole || role == Qt::UserRole) return QString::fromStdString(e->candidate.label());
      return {};
    case StepTime: v = metric(*e, "step_s"); text = number(v, 3) + " s"; break;
    case TokensPerGpu: v = metric(*e, "tokens_per_s_per_gpu"); text = number(v, 0); break;
    case Mfu: v = 100 * metric(*e, "mfu"); text = number(v, 1) + " %"; break;
    case MemoryGiB: v = metric(*e, "memory_per_gpu_gib"); text = number(v, 1); break;
    case Bubble: v = 100 * metric(*e, "pipeline_bubble_fraction"); text = number(v, 1) + " %"; break;
    case ExposedComm: v = 1e3 * metric(*e, "exposed_comm_s"); text = number(v, 2) + " ms"; break;
    default: return {};
  }
  if (role == Qt::UserRole) return v;
  if (role == Qt::DisplayRole) return text;
  if (role == Qt::TextAlignmentRole) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

PlanFilterModel::PlanFilterModel(QObject* parent) : QSortFilterProxyModel(parent) { setSortRole(Qt::UserRole); }

void PlanFilterModel::set_layout_text(const QString& text) {
  text_ = text;
  invalidateFilter();
}

void PlanFilterModel::set_max_memory_gib(double gib) {
  max_gib_ = gib;
  invalidateFilter();
}

bool PlanFilterModel::filterAcceptsRow(int row, const QModelIndex& parent) const {
  const QAbstractItemModel* m = sourceModel();
  const QString layout = m->data(m->index(row, PlanTableModel::Layout, parent), Qt::UserRole).toString();
  if (!text_.isEmpty() && !layout.contains(text_, Qt::CaseInsensitive)) return false;
  const double gib = m->data(m->index(row, PlanTableModel::MemoryGiB, parent), Qt::UserRole).toDouble();
  return max_gib_ <= 0 || gib <= max_gib_;
}

planning::PlanOptions plan_view_options(int gpus, int top) {
  planning::PlanOptions o;
  o.gpus = gpus;
  o.top = top;
  o.search = planning::PlanSearch{};
  o.misses = static_cast<std::size_t>(std::max(0, top));
  o.predict_misses = true;
  return o;
}

PlanChartPoints plan_chart_points(const planning::PlanOutcome& out) {
  PlanChartPoints p;
  auto add = [](std::vector<QPointF>& to, const planning::PointResult& r) {
    const double x = planning::metric_value(r, "memory_per_gpu_gib");
    const double y = planning::metric_value(r, "tokens_per_s_per_gpu");
    if (r.status == planning::PointStatus::Ok && !std::isnan(x) && !std::isnan(y)) to.emplace_back(x, y);
  };
  for (const planning::PlanEntry& e : out.best) add(p.fits, e.result);
  for (const planning::PlanMiss& m : out.closest_misses)
    if (m.result) add(p.over, *m.result);
  return p;
}

std::vector<CompareRow> compare_entries(const planning::PlanEntry& a, const planning::PlanEntry& b) {
  std::vector<CompareRow> rows;
  auto field = [&](const char* name, const QString& x, const QString& y) {
    rows.push_back({QString::fromLatin1(name), x, y, x == y ? QStringLiteral("same") : QStringLiteral("differs")});
  };
  const planning::PlanCandidate &ca = a.candidate, &cb = b.candidate;
  auto n = [](int v) { return QString::number(v); };
  field("layout", QString::fromStdString(ca.label()), QString::fromStdString(cb.label()));
  field("tp", n(ca.tp), n(cb.tp));
  field("cp", n(ca.cp), n(cb.cp));
  field("cp_comm_type", QString::fromStdString(ca.comm_label()), QString::fromStdString(cb.comm_label()));
  field("pp", n(ca.pp), n(cb.pp));
  field("vpp", n(ca.vpp), n(cb.vpp));
  auto layers = [](int v) { return v > 0 ? QString::number(v) : QStringLiteral("even"); };
  field("first stage layers", layers(ca.first_stage_layers), layers(cb.first_stage_layers));
  field("last stage layers", layers(ca.last_stage_layers), layers(cb.last_stage_layers));
  auto in_split = [](bool emb, bool loss) {
    return emb && loss ? QStringLiteral("embedding, loss") : emb ? QStringLiteral("embedding") : loss ? QStringLiteral("loss") : QStringLiteral("-");
  };
  field("counted in the split", in_split(ca.embedding_in_split, ca.loss_in_split), in_split(cb.embedding_in_split, cb.loss_in_split));
  field("dp", n(ca.dp), n(cb.dp));
  field("micro_batch_size", n(ca.mbs), n(cb.mbs));
  field("recompute", QString::fromLatin1(to_string(ca.recompute)), QString::fromLatin1(to_string(cb.recompute)));
  field("distributed_optimizer", ca.distributed_optimizer ? "on" : "off", cb.distributed_optimizer ? "on" : "off");
  field("order", QString::fromStdString(ca.order), QString::fromStdString(cb.order));
  for (const std::string& m : planning::metric_names()) {
    const double x = planning::metric_value(a.result, m), y = planning::metric_value(b.result, m);
    if (std::isnan(x) && std::isnan(y)) continue;
    auto text = [](double v) { return std::isnan(v) ? QStringLiteral("-") : QString::number(v, 'g', 5); };
    QString d = std::isnan(x) || std::isnan(y) ? QStringLiteral("-") : QString::number(y - x, 'g', 4);
    if (!std::isnan(x) && !std::isnan(y) && x != 0) d += QStringLiteral(" (%1%2 %)").arg(y >= x ? "+" : "").arg(100 * (y - x) / x, 0, 'f', 1);
    rows.push_back({QString::fromStdString(m), text(x), text(y), d});
  }
  return rows;
}

}  // namespace hcpsim::gui
