#include "gui/app/scenario_editor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QScrollArea>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSpinBox>
#include <QSplitter>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>
#include <functional>
#include <iterator>
#include <map>

#include "engine/scenario/loader.h"
#include "engine/step/step_work.h"
#include "engine/validate/validate.h"
#include "gui/models/yaml_text_edit.h"

namespace hcpsim::gui {
namespace {

// The fields a planner changes, grouped as Megatron-Bridge's configuration groups them.
struct FieldSpec {
  const char* group;
  const char* path;
  const char* label;
  enum { Int, OptionalInt, Text, Choice, Bool } type;   // OptionalInt: 0 shows "not set" and writes null
  const char* choices;   // Choice: '|' separated YAML values ("null": not set)
};

const FieldSpec kFields[] = {
    {"model", "name", "name", FieldSpec::Text, nullptr},
    {"model", "model.num_layers", "layers", FieldSpec::Int, nullptr},
    {"model", "model.hidden_size", "hidden size", FieldSpec::Int, nullptr},
    {"model", "model.ffn_hidden_size", "FFN hidden size", FieldSpec::Int, nullptr},
    {"model", "model.num_attention_heads", "attention heads", FieldSpec::Int, nullptr},
    {"model", "model.num_query_groups", "KV heads (query groups)", FieldSpec::Int, nullptr},
    {"model", "model.kv_channels", "head dim (kv_channels)", FieldSpec::Int, nullptr},
    {"model", "model.vocab_size", "vocabulary (padded)", FieldSpec::Int, nullptr},
    {"model", "model.untie_embeddings_and_output_weights", "untied embeddings", FieldSpec::Bool, nullptr},
    {"model", "model.seq_length", "seq_length", FieldSpec::Int, nullptr},
    {"model", "model.attn_mask_type", "mask", FieldSpec::Choice, "causal|no_mask"},
    {"model", "model.tensor_model_parallel_size", "tp", FieldSpec::Int, nullptr},
    {"model", "model.sequence_parallel", "sequence parallel", FieldSpec::Bool, nullptr},
    {"model", "model.context_parallel_size", "cp", FieldSpec::Int, nullptr},
    {"model", "model.cp_comm_type", "cp_comm_type", FieldSpec::Choice, "p2p|all_gather|a2a|a2a+p2p"},
    {"model", "model.hierarchical_context_parallel_sizes", "hierarchical sizes [A,P]", FieldSpec::Text, nullptr},
    {"model", "model.pipeline_model_parallel_size", "pp", FieldSpec::Int, nullptr},
    {"model", "model.virtual_pipeline_model_parallel_size", "vpp", FieldSpec::Int, nullptr},
    {"model", "model.decoder_first_pipeline_num_layers", "first stage layers", FieldSpec::OptionalInt, nullptr},
    {"model", "model.decoder_last_pipeline_num_layers", "last stage layers", FieldSpec::OptionalInt, nullptr},
    {"model", "model.account_for_embedding_in_pipeline_split", "embedding counts in the split", FieldSpec::Bool, nullptr},
    {"model", "model.account_for_loss_in_pipeline_split", "loss counts in the split", FieldSpec::Bool, nullptr},
    {"model", "model.recompute_granularity", "recompute", FieldSpec::Choice, "null|selective|full|non_attention|selective_op"},
    {"model", "model.recompute_method", "recompute method", FieldSpec::Choice, "uniform|block"},
    {"model", "model.recompute_num_layers", "recompute layers", FieldSpec::Int, nullptr},
    {"model", "model.elementwise_ops", "element-wise ops", FieldSpec::Choice, "fused|unfused|none"},
    {"train", "train.mode", "mode", FieldSpec::Choice, "train|prefill"},
    {"train", "train.global_batch_size", "global batch", FieldSpec::Int, nullptr},
    {"train", "train.micro_batch_size", "micro-batch", FieldSpec::Int, nullptr},
    {"ddp", "ddp.shard_parameters", "shard parameters (FSDP)", FieldSpec::Bool, nullptr},
    {"ddp", "ddp.grad_reduce_in_fp32", "gradient reduction in fp32", FieldSpec::Bool, nullptr},
    {"optimizer", "ddp.use_distributed_optimizer", "distributed optimizer", FieldSpec::Bool, nullptr},
    {"mixed precision", "model.params_dtype", "params dtype", FieldSpec::Choice, "bf16|fp16"},
    {"mixed precision", "model.fp8", "FP8", FieldSpec::Choice, "null|hybrid|e4m3"},
    {"mixed precision", "model.fp8_recipe", "FP8 recipe", FieldSpec::Choice, "delayed|tensorwise|mxfp8|blockwise"},
    {"mixed precision", "model.fp8_dot_product_attention", "FP8 attention", FieldSpec::Bool, nullptr},
    {"comm overlap", "model.tp_comm_overlap", "TP comm overlap (userbuffers)", FieldSpec::Bool, nullptr},
    {"comm overlap", "model.overlap_p2p_comm", "overlap pipeline sends (null: by schedule)", FieldSpec::Choice, "null|true|false"},
    {"comm overlap", "ddp.overlap_grad_reduce", "overlap grad reduce", FieldSpec::Bool, nullptr},
    {"comm overlap", "ddp.overlap_param_gather", "overlap param gather", FieldSpec::Bool, nullptr},
    {"cluster", "cluster.nodes", "nodes", FieldSpec::Int, nullptr},
    {"cluster", "cluster.gpus_per_node", "GPUs per node", FieldSpec::Int, nullptr},
    {"cluster", "dist.order", "rank order", FieldSpec::Choice, "tp-cp-ep-dp-pp|tp-cp-ep-pp-dp"},
    {"cluster", "dist.use_decentralized_pg", "decentralized process groups", FieldSpec::Bool, nullptr},
};

QString yes_no(bool b) { return b ? QStringLiteral("true") : QStringLiteral("false"); }

// The scenario's value of a form field as the form shows it (resolved defaults included).
QString field_text(const Scenario& s, const std::string& path) {
  using Get = std::function<QString(const Scenario&)>;
  static const std::map<std::string, Get> get = {
      {"name", [](const Scenario& x) { return QString::fromStdString(x.name); }},
      {"model.num_layers", [](const Scenario& x) { return QString::number(x.model.num_layers); }},
      {"model.hidden_size", [](const Scenario& x) { return QString::number(x.model.hidden_size); }},
      {"model.ffn_hidden_size", [](const Scenario& x) { return QString::number(x.model.ffn_hidden_size); }},
      {"model.num_attention_heads", [](const Scenario& x) { return QString::number(x.model.num_attention_heads); }},
      {"model.num_query_groups", [](const Scenario& x) { return QString::number(x.model.num_query_groups); }},
      {"model.kv_channels", [](const Scenario& x) { return QString::number(x.head_dim()); }},
      {"model.vocab_size", [](const Scenario& x) { return QString::number(x.model.vocab_size); }},
      {"model.untie_embeddings_and_output_weights", [](const Scenario& x) { return yes_no(x.model.untie_embeddings_and_output_weights); }},
      {"model.seq_length", [](const Scenario& x) { return QString::number(x.model.seq_length); }},
      {"model.attn_mask_type", [](const Scenario& x) { return QString::fromLatin1(to_string(x.model.attn_mask_type)); }},
      {"model.tensor_model_parallel_size", [](const Scenario& x) { return QString::number(x.tp()); }},
      {"model.sequence_parallel", [](const Scenario& x) { return yes_no(x.model.sequence_parallel); }},
      {"model.context_parallel_size", [](const Scenario& x) { return QString::number(x.cp()); }},
      {"model.cp_comm_type", [](const Scenario& x) { return QString::fromLatin1(to_string(x.comm_type_for_layer(0))); }},
      {"model.hierarchical_context_parallel_sizes", [](const Scenario& x) {
         const auto& h = x.model.hierarchical_context_parallel_sizes;
         return h.size() == 2 ? QStringLiteral("[%1, %2]").arg(h[0]).arg(h[1]) : QString();
       }},
      {"model.pipeline_model_parallel_size", [](const Scenario& x) { return QString::number(x.pp()); }},
      {"model.virtual_pipeline_model_parallel_size", [](const Scenario& x) { return QString::number(x.vpp()); }},
      {"model.decoder_first_pipeline_num_layers", [](const Scenario& x) { return QString::number(x.model.decoder_first_pipeline_num_layers.value_or(0)); }},
      {"model.decoder_last_pipeline_num_layers", [](const Scenario& x) { return QString::number(x.model.decoder_last_pipeline_num_layers.value_or(0)); }},
      {"model.account_for_embedding_in_pipeline_split", [](const Scenario& x) { return yes_no(x.model.account_for_embedding_in_pipeline_split); }},
      {"model.account_for_loss_in_pipeline_split", [](const Scenario& x) { return yes_no(x.model.account_for_loss_in_pipeline_split); }},
      {"model.recompute_granularity", [](const Scenario& x) {
         return x.model.recompute_granularity == RecomputeGranularity::None
                    ? QStringLiteral("null") : QString::fromLatin1(to_string(x.model.recompute_granularity));
       }},
      {"model.recompute_method", [](const Scenario& x) { return QString::fromLatin1(to_string(x.model.recompute_method)); }},
      {"model.recompute_num_layers", [](const Scenario& x) { return QString::number(x.model.recompute_num_layers); }},
      {"model.elementwise_ops", [](const Scenario& x) { return QString::fromLatin1(to_string(x.model.elementwise_ops)); }},
      {"train.mode", [](const Scenario& x) { return QString::fromLatin1(to_string(x.train.mode)); }},
      {"train.global_batch_size", [](const Scenario& x) { return QString::number(x.global_batch()); }},
      {"train.micro_batch_size", [](const Scenario& x) { return QString::number(x.train.micro_batch_size); }},
      {"ddp.shard_parameters", [](const Scenario& x) { return yes_no(x.ddp.shard_parameters); }},
      {"ddp.grad_reduce_in_fp32", [](const Scenario& x) { return yes_no(step::grad_reduce_in_fp32(x)); }},
      {"ddp.use_distributed_optimizer", [](const Scenario& x) { return yes_no(x.ddp.use_distributed_optimizer); }},
      {"model.params_dtype", [](const Scenario& x) { return QString::fromLatin1(to_string(x.model.params_dtype)); }},
      {"model.fp8", [](const Scenario& x) { return x.model.fp8.empty() ? QStringLiteral("null") : QString::fromStdString(x.model.fp8); }},
      {"model.fp8_recipe", [](const Scenario& x) { return QString::fromStdString(x.model.fp8_recipe); }},
      {"model.fp8_dot_product_attention", [](const Scenario& x) { return yes_no(x.model.fp8_dot_product_attention); }},
      {"model.tp_comm_overlap", [](const Scenario& x) { return yes_no(x.model.tp_comm_overlap); }},
      {"model.overlap_p2p_comm",
       [](const Scenario& x) { return x.model.overlap_p2p_comm ? yes_no(*x.model.overlap_p2p_comm) : QStringLiteral("null"); }},
      {"ddp.overlap_grad_reduce", [](const Scenario& x) { return yes_no(x.ddp.overlap_grad_reduce); }},
      {"ddp.overlap_param_gather", [](const Scenario& x) { return yes_no(x.ddp.overlap_param_gather); }},
      {"cluster.nodes", [](const Scenario& x) { return QString::number(x.cluster.nodes); }},
      {"cluster.gpus_per_node", [](const Scenario& x) { return QString::number(x.cluster.gpus_per_node); }},
      {"dist.order", [](const Scenario& x) { return QString::fromStdString(x.dist.order); }},
      {"dist.use_decentralized_pg", [](const Scenario& x) { return yes_no(x.dist.use_decentralized_pg); }},
  };
  const auto it = get.find(path);
  return it == get.end() ? QString() : it->second(s);
}

QString severity_name(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

}  // namespace

QWidget* ScenarioEditor::make_editor(int field, QWidget* parent) {
  const FieldSpec& f = kFields[field];
  const QString path = QString::fromLatin1(f.path);
  if (f.type == FieldSpec::Int || f.type == FieldSpec::OptionalInt) {
    auto* sb = new QSpinBox(parent);
    sb->setRange(0, 1 << 30);
    const bool optional = f.type == FieldSpec::OptionalInt;
    if (optional) sb->setSpecialValueText(tr("not set"));
    connect(sb, &QSpinBox::valueChanged, this, [this, path, optional](int v) {
      if (!updating_) set_field(path, optional && v == 0 ? QStringLiteral("null") : QString::number(v));
    });
    return sb;
  }
  if (f.type == FieldSpec::Bool) {
    auto* cb = new QCheckBox(parent);
    connect(cb, &QCheckBox::toggled, this, [this, path](bool v) {
      if (!updating_) set_field(path, v ? QStringLiteral("true") : QStringLiteral("false"));
    });
    return cb;
  }
  if (f.type == FieldSpec::Choice) {
    auto* cb = new QComboBox(parent);
    cb->addItems(QString::fromLatin1(f.choices).split('|'));
    connect(cb, &QComboBox::currentTextChanged, this, [this, path](const QString& v) {
      if (!updating_) set_field(path, v);
    });
    return cb;
  }
  auto* le = new QLineEdit(parent);
  connect(le, &QLineEdit::editingFinished, this, [this, path, le] {
    if (!updating_) set_field(path, le->text().isEmpty() ? QStringLiteral("[]") : le->text());
  });
  return le;
}

ScenarioEditor::ScenarioEditor(QWidget* parent) : QWidget(parent) {
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* scroll = new QScrollArea(split);
  scroll->setWidgetResizable(true);
  auto* form_host = new QWidget(scroll);
  auto* groups = new QVBoxLayout(form_host);
  std::map<QString, QFormLayout*> forms;
  for (int i = 0; i < static_cast<int>(std::size(kFields)); ++i) {
    const FieldSpec& f = kFields[i];
    const QString group = QString::fromLatin1(f.group);
    if (!forms.count(group)) {
      auto* box = new QGroupBox(group, form_host);
      box->setObjectName("group." + group);
      forms[group] = new QFormLayout(box);
      forms[group]->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
      groups->addWidget(box);
    }
    QWidget* host = forms[group]->parentWidget();
    const QString path = QString::fromLatin1(f.path);
    QWidget* ed = make_editor(i, host);
    ed->setObjectName(path);
    ed->setToolTip(path);
    auto* msg = new QLabel(host);
    msg->setWordWrap(true);
    msg->setStyleSheet("color: #b01818;");
    msg->hide();
    auto* box = new QWidget(host);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(ed);
    v->addWidget(msg);
    forms[group]->addRow(QString::fromLatin1(f.label), box);
    fields_[path] = Field{ed, msg};
  }
  groups->addStretch(1);
  scroll->setWidget(form_host);
  text_ = new QPlainTextEdit(split);
  QFont mono("monospace");
  mono.setStyleHint(QFont::TypeWriter);
  text_->setFont(mono);
  text_->setObjectName("yaml");
  split->addWidget(scroll);
  split->addWidget(text_);
  split->setStretchFactor(1, 2);
  list_ = new QListWidget(this);
  list_->setMaximumHeight(140);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split, 1);
  layout->addWidget(list_);
  timer_ = new QTimer(this);
  timer_->setSingleShot(true);
  timer_->setInterval(250);
  connect(timer_, &QTimer::timeout, this, &ScenarioEditor::validate_now);
  connect(text_, &QPlainTextEdit::textChanged, this, [this] {
    if (!updating_) timer_->start();
  });
  connect(list_, &QListWidget::itemActivated, this, [this](QListWidgetItem* it) {
    const int line = it->data(Qt::UserRole).toInt();
    if (line <= 0) return;
    QTextCursor c(text_->document()->findBlockByNumber(line - 1));
    text_->setTextCursor(c);
    text_->setFocus();
  });
}

void ScenarioEditor::set_yaml(const QString& yaml, const QString& path) {
  path_ = path;
  updating_ = true;
  text_->setPlainText(yaml);
  updating_ = false;
  validate_now();
}

QString ScenarioEditor::yaml() const { return text_->toPlainText(); }

void ScenarioEditor::set_field(const QString& dotted, const QString& yaml_value) {
  // The value's line is edited in place: comments, blank lines and key order stay.
  QString text = text_->toPlainText();
  QString error;
  if (!set_yaml_value(text, dotted, yaml_value, &error)) {
    list_->clear();
    list_->addItem(error);
    return;
  }
  updating_ = true;
  text_->setPlainText(text);
  updating_ = false;
  validate_now();
}

QString ScenarioEditor::field_message(const QString& dotted) const {
  auto it = fields_.find(dotted);
  return (it == fields_.end() || it->second.message->isHidden()) ? QString() : it->second.message->text();
}

void ScenarioEditor::validate_now() {
  timer_->stop();
  diags_ = Diagnostics{};
  std::shared_ptr<Scenario> s;
  const std::string file = path_.isEmpty() ? "<editor>" : path_.toStdString();
  try {
    Diagnostics warnings;
    s = std::make_shared<Scenario>(load_scenario_string(text_->toPlainText().toStdString(), {}, file, &warnings));
    diags_.append(warnings);
    diags_.append(validate(*s));
  } catch (const ScenarioError& e) {
    diags_.append(e.diagnostics());
    s.reset();
  } catch (const std::exception& e) {
    diags_.error("", e.what());
    s.reset();
  }
  // Messages under the fields: the diagnostic's path equals the field or lies inside it.
  for (auto& [path, f] : fields_) {
    QStringList msgs;
    for (const auto& d : diags_.items()) {
      const QString dp = QString::fromStdString(d.path);
      if (dp == path || dp.startsWith(path + ".") || dp.startsWith(path + "["))
        msgs << severity_name(d.severity) + ": " + QString::fromStdString(d.message);
    }
    f.message->setText(msgs.join('\n'));
    f.message->setVisible(!msgs.isEmpty());
  }
  list_->clear();
  QList<QTextEdit::ExtraSelection> marks;
  for (const auto& d : diags_.items()) {
    auto* it = new QListWidgetItem(QStringLiteral("%1:%2: %3: %4: %5")
                                       .arg(QString::fromStdString(file)).arg(d.line)
                                       .arg(severity_name(d.severity), QString::fromStdString(d.path),
                                            QString::fromStdString(d.message)),
                                   list_);
    for (const auto& h : d.hints) it->setText(it->text() + "\n  hint: " + QString::fromStdString(h));
    it->setForeground(d.severity == Severity::Error ? QColor(0xb0, 0x18, 0x18) : QColor(0x9a, 0x6a, 0x00));
    it->setData(Qt::UserRole, d.line);
    if (d.line > 0) {
      QTextEdit::ExtraSelection sel;
      sel.cursor = QTextCursor(text_->document()->findBlockByNumber(d.line - 1));
      sel.cursor.select(QTextCursor::LineUnderCursor);
      sel.format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
      sel.format.setUnderlineColor(d.severity == Severity::Error ? Qt::red : QColor(0xd0, 0x90, 0x00));
      marks << sel;
    }
  }
  text_->setExtraSelections(marks);
  if (diags_.empty()) list_->addItem(tr("✓ valid"));
  if (s) fill_form(*s);
  emit diagnostics_changed(static_cast<int>(diags_.error_count()), static_cast<int>(diags_.warning_count()));
  if (s && !diags_.has_errors()) {
    scenario_ = s;
    emit scenario_changed(scenario_);
  }
}

void ScenarioEditor::fill_form(const Scenario& s) {
  updating_ = true;
  for (const auto& f : kFields) {
    QWidget* w = fields_[QString::fromLatin1(f.path)].editor;
    const QString v = field_text(s, f.path);
    if (auto* sb = qobject_cast<QSpinBox*>(w)) sb->setValue(v.toInt());
    if (auto* cb = qobject_cast<QCheckBox*>(w)) cb->setChecked(v == "true");
    if (auto* le = qobject_cast<QLineEdit*>(w)) le->setText(v);
    if (auto* cb = qobject_cast<QComboBox*>(w)) cb->setCurrentText(v);
  }
  updating_ = false;
}

}  // namespace hcpsim::gui
