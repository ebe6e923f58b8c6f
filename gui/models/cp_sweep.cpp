#include "gui/models/cp_sweep.h"

#include <map>
#include <utility>

#include "engine/app/prediction.h"
#include "engine/planning/planner.h"
#include "engine/validate/validate.h"

namespace hcpsim::gui {

CsvTable builtin_cp_sweep(const Scenario& base, QStringList* skipped) {
  CsvTable t;
  t.header = QStringList{"cp", "cp_comm_type", "hcp", "attention_s"};
  const int gpus = base.world_size();
  // (cp, comm) -> the fastest row
  std::map<std::pair<int, std::string>, std::pair<double, QStringList>> best;
  for (const planning::PlanCandidate& c : planning::enumerate_candidates(base, gpus)) {
    if (c.cp < 2 || c.tp != base.tp() || c.pp != base.pp() || c.order != base.dist.order) continue;
    Scenario s = planning::apply_candidate(base, c, gpus);
    s.train.global_batch_size = 0;   // one micro-batch per DP replica: the attention of a layer does not depend on it
    const QString name = QStringLiteral("cp=%1 %2").arg(c.cp).arg(QString::fromStdString(c.comm_label()));
    const Diagnostics d = validate(s);
    if (d.has_errors()) {
      for (const auto& item : d.items())
        if (item.severity == Severity::Error) {
          if (skipped) *skipped << name + ": " + QString::fromStdString(item.message);
          break;
        }
      continue;
    }
    try {
      SimulateOptions no_events;
      no_events.keep_events = false;
      const Report r = app::predict_attention(s, "analytic", no_events).report;
      const double attention_s = r.attention_forward_s + r.attention_backward_s;
      const QString hcp = c.hierarchical.size() == 2 ? QStringLiteral("[%1,%2]").arg(c.hierarchical[0]).arg(c.hierarchical[1]) : QString();
      auto& slot = best[{c.cp, c.comm_label()}];
      if (slot.second.isEmpty() || attention_s < slot.first)
        slot = {attention_s, QStringList{QString::number(c.cp), QString::fromStdString(c.comm_label()), hcp,
                                         QString::number(attention_s, 'g', 9)}};
    } catch (const std::exception& ex) {
      if (skipped) *skipped << name + ": " + QString::fromUtf8(ex.what());
    }
  }
  for (auto& [key, row] : best) t.rows.push_back(std::move(row.second));
  return t;
}

}  // namespace hcpsim::gui
