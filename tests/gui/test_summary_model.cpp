// The summary model reads the engine's Report: headline figures with units, memory against
// capacity, exposed communication by group; every figure has a definition, and docs/gui.md lists them.
#include <gtest/gtest.h>

#include <QFile>

#include "engine/app/prediction.h"
#include "engine/app/scenario_input.h"
#include "gui/models/figure_definitions.h"
#include "gui/models/summary_model.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

Report report_with_step(double peak_gib, double capacity_gib) {
  Report r;
  r.scenario = "demo";
  r.backend = "analytic";
  r.exposed_comm_forward_s = 0.002;
  r.exposed_comm_backward_s = 0.003;
  StepReport st;
  st.time_s = 12.5;
  st.tokens_per_s_per_gpu = 1234.4;
  st.mfu = 0.4321;
  st.model_tflops_per_gpu = 427.3;
  st.pipeline_bubble_fraction = 0.125;
  st.dp_group_size = 4;
  st.dp_exposed_s = 0.25;
  st.p2p_forward_s = 0.001;
  st.p2p_backward_s = 0.002;
  r.step = st;
  MemoryReport m;
  m.peak_bytes_per_gpu = peak_gib * kGiB;
  m.capacity_bytes_per_gpu = capacity_gib * kGiB;
  m.breakdown_bytes = {{"weights", 10 * kGiB}, {"activations", (peak_gib - 10) * kGiB}};
  r.memory = m;
  return r;
}

TEST(SummaryModel, HeadlineFiguresWithUnits) {
  const Summary s = summarize(report_with_step(60, 80));
  ASSERT_TRUE(s.has_step);
  ASSERT_NE(s.find("step.time_s"), nullptr);
  EXPECT_DOUBLE_EQ(s.find("step.time_s")->value, 12.5);
  EXPECT_EQ(s.find("step.time_s")->text, "12.5 s");
  EXPECT_EQ(s.find("step.tokens_per_s_per_gpu")->text, "1234 tokens/s");
  EXPECT_EQ(s.find("step.mfu")->text, "43.2 %");
  EXPECT_EQ(s.find("step.pipeline_bubble_fraction")->text, "12.5 %");
  EXPECT_TRUE(s.fits());
  EXPECT_EQ(s.find("memory.headroom_bytes")->text, "20.0 GiB (fits)");
  ASSERT_EQ(s.memory.size(), 2u);
  EXPECT_EQ(s.memory[1].name, "activations");
}

TEST(SummaryModel, ErrorBandWhenTheStepHasOne) {
  Report r = report_with_step(60, 80);
  EXPECT_EQ(summarize(r).find("error_band"), nullptr);
  r.step->error_band = accuracy::ErrorBand{.low_fraction = -0.1, .high_fraction = 0.2, .case_class = "whole_step/bf16",
                                           .holdout_cases = 5};
  const Summary s = summarize(r);
  ASSERT_NE(s.find("error_band"), nullptr);
  EXPECT_TRUE(s.find("error_band")->text.startsWith("11.25 s .. 15 s (")) << s.find("error_band")->text.toStdString();
  EXPECT_TRUE(s.error_band.contains("whole_step/bf16"));
}

TEST(SummaryModel, DoesNotFitByHowMuch) {
  const Summary s = summarize(report_with_step(90.5, 80));
  EXPECT_FALSE(s.fits());
  EXPECT_DOUBLE_EQ(s.find("memory.headroom_bytes")->value, -10.5);
  EXPECT_EQ(s.find("memory.headroom_bytes")->text, "-10.5 GiB (does not fit)");
}

TEST(SummaryModel, ExposedCommunicationByGroup) {
  const Summary s = summarize(report_with_step(60, 80));
  EXPECT_EQ(s.find("exposed.layer_s")->text, "5 ms");
  EXPECT_EQ(s.find("exposed.dp_s")->text, "250 ms");
  EXPECT_EQ(s.find("exposed.p2p_s")->text, "3 ms");
  EXPECT_EQ(s.find("exposed.fsdp_s"), nullptr);   // no full sharding
  Report no_dp = report_with_step(60, 80);
  no_dp.step->dp_group_size = 1;
  EXPECT_EQ(summarize(no_dp).find("exposed.dp_s"), nullptr);
}

TEST(SummaryModel, NoStepNoStepFigures) {
  Report r = report_with_step(60, 80);
  r.step.reset();
  const Summary s = summarize(r);
  EXPECT_FALSE(s.has_step);
  EXPECT_EQ(s.find("step.time_s"), nullptr);
  EXPECT_NE(s.find("memory.peak_bytes_per_gpu"), nullptr);
}

TEST(SummaryModel, FormatsSeconds) {
  EXPECT_EQ(format_seconds(2.0), "2 s");
  EXPECT_EQ(format_seconds(0.0462), "46.2 ms");
  EXPECT_EQ(format_seconds(0.00085), "850 us");
}

// One source: the summary of the application layer's prediction shows the report's step time.
TEST(SummaryModel, ReadsTheApplicationLayersReport) {
  auto loaded = app::load_scenario({.file = HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml",
                                    .overrides = {}, .backend = "analytic", .check_backend = true});
  ASSERT_TRUE(loaded.usable());
  SimulateOptions o;
  o.keep_events = false;
  const Report r = app::predict(loaded.scenario, "analytic", o).report;
  ASSERT_TRUE(r.step);
  const Summary s = summarize(r);
  EXPECT_DOUBLE_EQ(s.find("step.time_s")->value, r.step->time_s);
  EXPECT_DOUBLE_EQ(s.find("step.tokens_per_s_per_gpu")->value, r.step->tokens_per_s_per_gpu);
  ASSERT_TRUE(r.memory);
  EXPECT_EQ(s.memory.size(), r.memory->breakdown_bytes.size());
}

TEST(FigureDefinitions, EveryFigureIsDefinedInTheDocs) {
  QFile f(HCPSIM_SOURCE_DIR "/docs/gui.md");
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QString doc = QString::fromUtf8(f.readAll());
  for (const FigureDefinition& d : figure_definitions()) {
    const QString row = QStringLiteral("| %1 | %2 | %3 |").arg(QString::fromUtf8(d.label), QString::fromUtf8(d.unit),
                                                                QString::fromUtf8(d.definition));
    EXPECT_TRUE(doc.contains(row)) << "docs/gui.md lacks the row: " << row.toStdString();
  }
  EXPECT_THROW(figure("no.such.figure"), std::out_of_range);
  EXPECT_TRUE(figure_tooltip("step.mfu").startsWith("MFU (%): "));
}

}  // namespace
