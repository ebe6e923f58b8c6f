#include "gui/models/analytic_run.h"

#include "engine/app/prediction.h"

namespace hcpsim::gui {

Trace run_analytic(const Scenario& s) { return app::predict_attention(s, "analytic").trace; }

CsvTable builtin_cp_sweep(const Scenario& base, QStringList* skipped) {
  CsvTable t;
  t.header = QStringList{"cp", "cp_comm_type", "hcp", "attention_s"};
  const int model_par = base.tp() * base.pp();
  const int max_cp = model_par > 0 ? base.world_size() / model_par : 0;
  for (int cp = 2; cp <= max_cp; cp *= 2) {
    if (max_cp % cp != 0 || base.model.seq_length % (2 * cp) != 0) continue;
    for (CpCommType type : {CpCommType::P2P, CpCommType::AllGather, CpCommType::A2A, CpCommType::A2AP2P}) {
      Scenario s = base;
      s.model.context_parallel_size = cp;
      s.model.cp_comm_type = {type};
      s.model.hierarchical_context_parallel_sizes.clear();
      const int h = s.heads_per_tp_rank(), g = s.kv_heads_per_tp_rank();
      QString hcp;
      if (type == CpCommType::A2A && (h % cp != 0 || g % cp != 0)) {
        if (skipped) *skipped << QStringLiteral("cp=%1 a2a: %2 KV heads per TP rank not divisible by cp").arg(cp).arg(g);
        continue;
      }
      if (type == CpCommType::A2AP2P) {
        int A = 0;
        for (int a = cp / 2; a >= 2; a /= 2)
          if (cp % a == 0 && h % a == 0 && g % a == 0) {
            A = a;
            break;
          }
        if (A == 0) {
          if (skipped) *skipped << QStringLiteral("cp=%1 a2a+p2p: no a2a size 2..cp/2 divides the KV heads").arg(cp);
          continue;
        }
        s.model.hierarchical_context_parallel_sizes = {A, cp / A};
        hcp = QStringLiteral("[%1,%2]").arg(A).arg(cp / A);
      }
      try {
        SimulateOptions no_events;
        no_events.keep_events = false;
        const Report r = app::predict_attention(s, "analytic", no_events).report;
        const double attention_s = r.attention_forward_s + r.attention_backward_s;
        t.rows.push_back(QStringList{QString::number(cp), QString::fromLatin1(to_string(type)), hcp,
                                     QString::number(attention_s, 'g', 9)});
      } catch (const std::exception& ex) {
        if (skipped) *skipped << QStringLiteral("cp=%1 %2: %3").arg(cp).arg(QString::fromLatin1(to_string(type)), QString::fromUtf8(ex.what()));
      }
    }
  }
  return t;
}

}  // namespace hcpsim::gui
