// GUI frame costs at scale: one full repaint of the layout view with 4,096 GPUs (zoomed out and
// zoomed in), layout hit-testing, and a timeline repaint of a large synthetic trace. "Smooth" means
// a repaint well under 16 ms (60 frames/s); the counters print frames/s.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <cmath>
#include <cstdlib>

#include "gui/models/layout_geometry.h"
#include "gui/views/layout_view.h"
#include "gui/views/timeline_view.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

std::shared_ptr<const RankLayout> big_layout() {
  LayoutParams p;
  p.world_size = 4096;
  p.gpus_per_node = 8;
  p.tp = 2;
  p.cp = 16;
  p.hcp_sizes = {4, 4};
  return std::make_shared<const RankLayout>(RankLayout::build(p));
}

void BM_LayoutRepaint4096(benchmark::State& st) {
  LayoutView v;
  v.setAttribute(Qt::WA_DontShowOnScreen);
  v.resize(1400, 900);
  v.show();
  v.set_layout(big_layout());
  v.set_color_by(ColorBy::Ring);
  if (st.range(0) == 1) v.scale(12, 12);   // zoomed in: labels and arrow heads drawn
  QImage img(v.size(), QImage::Format_ARGB32_Premultiplied);
  for (auto _ : st) {
    QPainter p(&img);
    v.render(&p);
  }
  st.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_LayoutRepaint4096)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

void BM_LayoutHitTest4096(benchmark::State& st) {
  const auto g = LayoutGeometry::build(512, 8);
  const QRectF b = g.bounds();
  double x = 0;
  int hits = 0;
  for (auto _ : st) {
    x = x + 7.3;
    if (x > b.width()) x -= b.width();
    hits += g.rank_at(QPointF(x, std::fmod(x * 3.1, b.height()))) >= 0;
  }
  benchmark::DoNotOptimize(hits);
}
BENCHMARK(BM_LayoutHitTest4096);

void BM_TimelineRepaint(benchmark::State& st) {
  // 256 ranks x 4 streams x 64 events = 65,536 events.
  Trace tr;
  for (int r = 0; r < 256; ++r)
    for (int s = 0; s < 4; ++s)
      for (int k = 0; k < 64; ++k) {
        TraceEvent e;
        e.rank = r;
        e.stream = static_cast<Stream>(s);
        e.kind = static_cast<TaskKind>((k + s) % kTaskKindCount);
        e.start_s = k * 1e-5 + s * 1e-6;
        e.end_s = e.start_s + 8e-6;
        tr.events.push_back(e);
      }
  TimelineView v;
  v.setAttribute(Qt::WA_DontShowOnScreen);
  v.resize(1400, 900);
  v.show();
  v.set_traces(from_engine_trace(tr));
  QImage img(v.size(), QImage::Format_ARGB32_Premultiplied);
  for (auto _ : st) {
    QPainter p(&img);
    v.render(&p);
  }
  st.counters["frames_per_s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TimelineRepaint)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM") && !std::getenv("DISPLAY")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
