// The window's pieces: live validation in the scenario editor (diagnostics under the field), form
// and YAML kept in sync, sweeps with progress and cancel while the event loop runs.
#include <gtest/gtest.h>

#include <optional>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>

#include "gui/app/main_window.h"
#include "gui/app/scenario_editor.h"
#include "gui/models/summary_model.h"
#include "gui/views/chart_view.h"
#include "gui/views/hp_step_view.h"
#include "gui/views/summary_view.h"
#include "gui/views/sweep_panel.h"

using namespace hcpsim;
using namespace hcpsim::gui;

namespace {

QString example_yaml() {
  QFile f(HCPSIM_SOURCE_DIR "/scenarios/llama3-70b-128k-dgx-h100-hcp.yaml");
  EXPECT_TRUE(f.open(QIODevice::ReadOnly));
  return QString::fromUtf8(f.readAll());
}

TEST(ScenarioEditor, ValidScenarioFillsTheForm) {
  ScenarioEditor ed;
  QSignalSpy changed(&ed, &ScenarioEditor::scenario_changed);
  ed.set_yaml(example_yaml(), "example.yaml");
  ASSERT_FALSE(ed.diagnostics().has_errors());
  ASSERT_EQ(changed.count(), 1);
  ASSERT_TRUE(ed.scenario());
  EXPECT_EQ(ed.scenario()->cp(), 16);
  auto* cp = ed.findChild<QSpinBox*>("model.context_parallel_size");
  ASSERT_NE(cp, nullptr);
  EXPECT_EQ(cp->value(), 16);
  EXPECT_TRUE(ed.field_message("model.context_parallel_size").isEmpty());
}

TEST(ScenarioEditor, FormEditShowsDiagnosticUnderTheField) {
  ScenarioEditor ed;
  ed.set_yaml(example_yaml(), "example.yaml");
  QSignalSpy changed(&ed, &ScenarioEditor::scenario_changed);
  // 32 GPUs, tp=2: cp=3 leaves 32 % 6 != 0.
  ed.findChild<QSpinBox*>("model.context_parallel_size")->setValue(3);
  EXPECT_TRUE(ed.diagnostics().has_errors());
  EXPECT_TRUE(ed.yaml().contains("context_parallel_size: 3"));
  EXPECT_TRUE(ed.field_message("model.context_parallel_size").contains("divisible")) <<
      ed.field_message("model.context_parallel_size").toStdString();
  EXPECT_EQ(changed.count(), 0);   // the views keep the last valid scenario
  // Back to a valid value: the message goes away and the scenario is re-emitted.
  ed.findChild<QSpinBox*>("model.context_parallel_size")->setValue(16);
  EXPECT_FALSE(ed.diagnostics().has_errors());
  EXPECT_TRUE(ed.field_message("model.context_parallel_size").isEmpty());
  EXPECT_EQ(changed.count(), 1);
}

TEST(ScenarioEditor, TextErrorsCarryTheLine) {
  ScenarioEditor ed;
  QString y = example_yaml();
  y.replace("  seq_length: 131072", "  seq_lenght: 131072");
  ed.set_yaml(y, "typo.yaml");
  ASSERT_TRUE(ed.diagnostics().has_errors());
  bool has_line = false;
  for (const auto& d : ed.diagnostics().items()) has_line = has_line || d.line > 0;
  EXPECT_TRUE(has_line);
  EXPECT_FALSE(ed.scenario());
}

// Whole-job switches in the form: ticking TP comm overlap writes the YAML line and changes the
// prediction (the sequence-parallel collectives of tp 2 hide behind their GEMMs: a shorter step).
TEST(ScenarioEditor, TpCommOverlapEditsTheYamlAndThePrediction) {
  MainWindow w;
  ASSERT_TRUE(w.open_path(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml",
                          {"model.tensor_model_parallel_size=2", "model.context_parallel_size=4", "model.sequence_parallel=true"}));
  auto* overlap = w.editor()->findChild<QCheckBox*>("model.tp_comm_overlap");
  ASSERT_NE(overlap, nullptr);
  EXPECT_FALSE(overlap->isChecked());
  auto step_time = [&w] {
    QSignalSpy done(&w, &MainWindow::prediction_finished);
    EXPECT_TRUE(w.run_simulate("analytic"));
    EXPECT_TRUE(done.wait(120000));
    EXPECT_EQ(done.at(0).at(0).toString(), QString());
    return w.summary()->summary().find("step.time_s")->value;
  };
  const double without = step_time();
  overlap->setChecked(true);
  EXPECT_TRUE(w.editor()->yaml().contains("tp_comm_overlap: true")) << w.editor()->yaml().toStdString();
  EXPECT_TRUE(w.editor()->yaml().contains("# full recomputation"));   // the file's comments stay
  ASSERT_FALSE(w.editor()->diagnostics().has_errors());
  EXPECT_TRUE(w.editor()->scenario()->model.tp_comm_overlap);
  const double with = step_time();
  EXPECT_GT(without, 0);
  EXPECT_LT(with, without);
  // Without sequence parallelism the switch is refused under its field.
  w.editor()->findChild<QCheckBox*>("model.sequence_parallel")->setChecked(false);
  EXPECT_TRUE(w.editor()->diagnostics().has_errors());
  EXPECT_TRUE(w.editor()->field_message("model.tp_comm_overlap").contains("sequence-parallel"))
      << w.editor()->field_message("model.tp_comm_overlap").toStdString();
}

// Every whole-job switch of the schema that the engine models has its field in the form, showing the
// scenario's value.
TEST(ScenarioEditor, FormShowsTheWholeJobSwitches) {
  ScenarioEditor ed;   // two switches set in the file, the others at their defaults
  ed.set_yaml(example_yaml().replace("model:\n", "model:\n  elementwise_ops: unfused\n  vocab_size: 32000\n"), "example.yaml");
  ASSERT_FALSE(ed.diagnostics().has_errors());
  for (const char* b : {"model.tp_comm_overlap", "model.fp8_dot_product_attention",
                        "model.untie_embeddings_and_output_weights", "dist.use_decentralized_pg"})
    EXPECT_NE(ed.findChild<QCheckBox*>(b), nullptr) << b;
  ASSERT_NE(ed.findChild<QComboBox*>("model.elementwise_ops"), nullptr);
  EXPECT_EQ(ed.findChild<QComboBox*>("model.elementwise_ops")->currentText(), "unfused");
  EXPECT_EQ(ed.findChild<QSpinBox*>("model.vocab_size")->value(), 32000);
  EXPECT_EQ(ed.findChild<QSpinBox*>("model.kv_channels")->value(), ed.scenario()->head_dim());
  EXPECT_GT(ed.findChild<QSpinBox*>("model.kv_channels")->value(), 0);
  // The uneven pipeline split: unset shows "not set"; a number is written, and 0 writes null (unset again).
  auto* first = ed.findChild<QSpinBox*>("model.decoder_first_pipeline_num_layers");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->value(), 0);
  EXPECT_EQ(first->text(), "not set");
  ed.findChild<QSpinBox*>("cluster.nodes")->setValue(8);   // 64 GPUs: tp 2 x cp 16 x pp 2
  ed.findChild<QSpinBox*>("model.pipeline_model_parallel_size")->setValue(2);
  first->setValue(38);
  EXPECT_TRUE(ed.yaml().contains("decoder_first_pipeline_num_layers: 38")) << ed.yaml().toStdString();
  ASSERT_FALSE(ed.diagnostics().has_errors());
  EXPECT_EQ(ed.scenario()->model.decoder_first_pipeline_num_layers, 38);
  first->setValue(0);
  EXPECT_TRUE(ed.yaml().contains("decoder_first_pipeline_num_layers: null")) << ed.yaml().toStdString();
  ASSERT_FALSE(ed.diagnostics().has_errors());
  EXPECT_FALSE(ed.scenario()->model.decoder_first_pipeline_num_layers.has_value());
  EXPECT_NE(ed.findChild<QCheckBox*>("model.account_for_embedding_in_pipeline_split"), nullptr);
  // Pipeline send overlap: unset shows null (Megatron's choice by schedule); false is written and
  // stated; null makes it unset again.
  auto* p2p = ed.findChild<QComboBox*>("model.overlap_p2p_comm");
  ASSERT_NE(p2p, nullptr);
  EXPECT_EQ(p2p->currentText(), "null");
  p2p->setCurrentText("false");
  EXPECT_TRUE(ed.yaml().contains("overlap_p2p_comm: false")) << ed.yaml().toStdString();
  ASSERT_FALSE(ed.diagnostics().has_errors());
  EXPECT_EQ(ed.scenario()->model.overlap_p2p_comm, std::optional<bool>(false));
  p2p->setCurrentText("null");
  ASSERT_FALSE(ed.diagnostics().has_errors());
  EXPECT_FALSE(ed.scenario()->model.overlap_p2p_comm.has_value());
  // fp32 gradient reduction: unstated it shows the resolved default (fp32 buckets without sharding);
  // unticking writes the line and the scenario states false.
  auto* fp32 = ed.findChild<QCheckBox*>("ddp.grad_reduce_in_fp32");
  ASSERT_NE(fp32, nullptr);
  EXPECT_TRUE(fp32->isChecked());
  fp32->setChecked(false);
  EXPECT_TRUE(ed.yaml().contains("grad_reduce_in_fp32: false")) << ed.yaml().toStdString();
  ASSERT_FALSE(ed.diagnostics().has_errors());
  EXPECT_EQ(ed.scenario()->ddp.grad_reduce_in_fp32, std::optional<bool>(false));
}

// Run ▸ Sweep in this process: the window stays responsive, the points arrive as rows, Cancel stops.
TEST(SweepPanel, SweepsInTheBackgroundWhileTheEventLoopTurns) {
  SweepPanel p;
  QSignalSpy done(&p, &SweepPanel::run_finished);
  p.set_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml");
  p.set_vary("model.context_parallel_size=2,4 simulation.backend=analytic");
  ASSERT_TRUE(p.start());
  EXPECT_TRUE(p.running());
  EXPECT_FALSE(p.start());   // one at a time
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(done.at(0).at(0).toString(), QString()) << done.at(0).at(0).toString().toStdString();
  EXPECT_FALSE(p.running());
  ASSERT_EQ(p.model()->rowCount(), 2);
  EXPECT_TRUE(p.status_text().contains("2 predicted")) << p.status_text().toStdString();
  ASSERT_NE(p.chart()->chart(), nullptr);
  EXPECT_EQ(p.chart()->chart()->series().size(), 1);
}

TEST(SweepPanel, CancelStopsTheSweep) {
  SweepPanel p;
  QSignalSpy done(&p, &SweepPanel::run_finished);
  p.set_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml");
  p.set_vary("model.context_parallel_size=1,2,4,8 model.cp_comm_type=p2p,a2a,all_gather "
             "model.seq_length=16384,32768,65536 simulation.backend=analytic");
  ASSERT_TRUE(p.start());
  p.cancel();
  ASSERT_TRUE(done.wait(60000));
  EXPECT_EQ(done.at(0).at(0).toString(), QStringLiteral("sweep cancelled"));
  EXPECT_EQ(p.model()->rowCount(), 0);
}

TEST(SweepPanel, BadAxesAreRefusedWithTheReason) {
  SweepPanel p;
  p.set_file(HCPSIM_SOURCE_DIR "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml");
  EXPECT_FALSE(p.start());
  EXPECT_TRUE(p.status_text().contains("nothing to vary")) << p.status_text().toStdString();
  p.set_vary("model.context_parallel_size");
  EXPECT_FALSE(p.start());
  EXPECT_TRUE(p.status_text().contains("model.context_parallel_size")) << p.status_text().toStdString();
  EXPECT_FALSE(p.running());
}

// Opening a hyperparallel: scenario puts HyperParallel's step view where the ring steps are.
TEST(MainWindow, HyperParallelScenarioShowsTheHyperParallelSteps) {
  MainWindow w;
  ASSERT_TRUE(w.open_path(HCPSIM_SOURCE_DIR "/scenarios/hp-llama3-8b-128k-dgx-h100-async-ulysses.yaml"));
  auto* tabs = w.findChild<QTabWidget*>();
  ASSERT_NE(tabs, nullptr);
  QStringList names;
  for (int i = 0; i < tabs->count(); ++i) names << tabs->tabText(i);
  EXPECT_TRUE(names.contains(QStringLiteral("HyperParallel steps"))) << names.join(", ").toStdString();
  EXPECT_FALSE(names.contains(QStringLiteral("Ring steps")));
  auto* view = w.findChild<HpStepView*>();
  ASSERT_NE(view, nullptr);
  ASSERT_NE(view->model(), nullptr);
  EXPECT_NE(view->model()->title().find("AsyncContextParallel"), std::string::npos);
  EXPECT_EQ(view->model()->cp(), 8);
  // Back to a Megatron scenario: the ring steps again.
  ASSERT_TRUE(w.open_path(HCPSIM_SOURCE_DIR "/scenarios/llama3-70b-128k-dgx-h100-hcp.yaml"));
  names.clear();
  for (int i = 0; i < tabs->count(); ++i) names << tabs->tabText(i);
  EXPECT_TRUE(names.contains(QStringLiteral("Ring steps"))) << names.join(", ").toStdString();
}

}  // namespace
