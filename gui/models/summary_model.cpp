#include "gui/models/summary_model.h"

#include <cmath>
#include <cstring>
#include <utility>


namespace hcpsim::gui {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

SummaryFigure make(const char* key, double value, QString text) { return SummaryFigure{key, value, std::move(text)}; }

SummaryFigure seconds(const char* key, double s) { return make(key, s, format_seconds(s)); }

}  // namespace

QString format_seconds(double s) {
  const double a = std::fabs(s);
  if (a >= 1.0 || a == 0.0) return QString::number(s, 'g', 4) + " s";
  if (a >= 1e-3) return QString::number(s * 1e3, 'g', 3) + " ms";
  return QString::number(s * 1e6, 'g', 3) + " us";
}

const SummaryFigure* Summary::find(const char* key) const {
  for (const auto* list : {&headline, &exposed})
    for (const auto& f : *list)
      if (std::strcmp(f.key, key) == 0) return &f;
  return nullptr;
}

Summary summarize(const Report& r) {
  Summary out;
  out.scenario = QString::fromStdString(r.scenario);
  out.backend = QString::fromStdString(r.backend);
  if (r.step) {
    const StepReport& st = *r.step;
    out.has_step = true;
    out.headline.push_back(seconds("step.time_s", st.time_s));
    out.headline.push_back(make("step.tokens_per_s_per_gpu", st.tokens_per_s_per_gpu,
                                QString::number(st.tokens_per_s_per_gpu, 'f', 0) + " tokens/s"));
    out.headline.push_back(make("step.mfu", 100 * st.mfu, QString::number(100 * st.mfu, 'f', 1) + " %"));
    out.headline.push_back(make("step.model_tflops_per_gpu", st.model_tflops_per_gpu,
                                QString::number(st.model_tflops_per_gpu, 'f', 1) + " TFLOP/s"));
    if (st.error_band) {
      const accuracy::ErrorBand& b = *st.error_band;
      out.error_band = QString::fromStdString(accuracy::describe(b));
      out.headline.push_back(make("error_band", b.time_high(st.time_s),
                                  format_seconds(b.time_low(st.time_s)) + " .. " + format_seconds(b.time_high(st.time_s)) +
                                      " (" + out.error_band + ")"));
    }
    out.headline.push_back(make("step.pipeline_bubble_fraction", 100 * st.pipeline_bubble_fraction,
                                QString::number(100 * st.pipeline_bubble_fraction, 'f', 1) + " %"));
  }
  out.headline.push_back(seconds("layer.attention_s", r.attention_forward_s + r.attention_backward_s));
  if (r.memory) {
    out.has_memory = true;
    out.peak_bytes = r.memory->peak_bytes_per_gpu;
    out.capacity_bytes = r.memory->capacity_bytes_per_gpu;
    for (const auto& [name, bytes] : r.memory->breakdown_bytes) out.memory.push_back({QString::fromStdString(name), bytes});
    const double peak = out.peak_bytes / kGiB, room = (out.capacity_bytes - out.peak_bytes) / kGiB;
    out.headline.push_back(make("memory.peak_bytes_per_gpu", peak,
                                QString::number(peak, 'f', 1) + " GiB of " +
                                    QString::number(out.capacity_bytes / kGiB, 'f', 1) + " GiB"));
    out.headline.push_back(make("memory.headroom_bytes", room,
                                QString::number(room, 'f', 1) + " GiB" + (room >= 0 ? " (fits)" : " (does not fit)")));
  }
  out.exposed.push_back(seconds("exposed.layer_s", r.exposed_comm_forward_s + r.exposed_comm_backward_s));
  if (r.step) {
    const StepReport& st = *r.step;
    if (st.dp_group_size > 1) out.exposed.push_back(seconds("exposed.dp_s", st.dp_exposed_s));
    if (st.p2p_forward_s + st.p2p_backward_s > 0)
      out.exposed.push_back(seconds("exposed.p2p_s", st.p2p_forward_s + st.p2p_backward_s));
    if (st.fsdp_exposed_s > 0) out.exposed.push_back(seconds("exposed.fsdp_s", st.fsdp_exposed_s));
  }
  return out;
}

}  // namespace hcpsim::gui
