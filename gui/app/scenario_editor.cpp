#include "gui/app/scenario_editor.h"

#include <QComboBox>
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
#include <sstream>
#include <yaml-cpp/yaml.h>

#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::gui {
namespace {

struct FieldSpec {
  const char* path;
  const char* label;
  enum { Int, Text, Choice } type;
  const char* choices;   // Choice: '|' separated
};

const FieldSpec kFields[] = {
    {"name", "name", FieldSpec::Text, nullptr},
    {"cluster.nodes", "nodes", FieldSpec::Int, nullptr},
    {"cluster.gpus_per_node", "GPUs per node", FieldSpec::Int, nullptr},
    {"model.tensor_model_parallel_size", "tp", FieldSpec::Int, nullptr},
    {"model.context_parallel_size", "cp", FieldSpec::Int, nullptr},
    {"model.pipeline_model_parallel_size", "pp", FieldSpec::Int, nullptr},
    {"model.cp_comm_type", "cp_comm_type", FieldSpec::Choice, "p2p|all_gather|a2a|a2a+p2p"},
    {"model.hierarchical_context_parallel_sizes", "hierarchical sizes [A,P]", FieldSpec::Text, nullptr},
    {"model.seq_length", "seq_length", FieldSpec::Int, nullptr},
    {"model.num_attention_heads", "attention heads", FieldSpec::Int, nullptr},
    {"model.num_query_groups", "KV heads (query groups)", FieldSpec::Int, nullptr},
    {"model.attn_mask_type", "mask", FieldSpec::Choice, "causal|no_mask"},
};

QString severity_name(Severity s) {
  return s == Severity::Error ? "error" : s == Severity::Warning ? "warning" : "note";
}

}  // namespace

ScenarioEditor::ScenarioEditor(QWidget* parent) : QWidget(parent) {
  auto* split = new QSplitter(Qt::Horizontal, this);
  auto* form_host = new QWidget(split);
  auto* form = new QFormLayout(form_host);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  for (const auto& f : kFields) {
    Field field;
    QWidget* ed = nullptr;
    const QString path = QString::fromLatin1(f.path);
    if (f.type == FieldSpec::Int) {
      auto* sb = new QSpinBox(form_host);
      sb->setRange(0, 1 << 30);
      connect(sb, &QSpinBox::valueChanged, this, [this, path](int v) {
        if (!updating_) set_field(path, QString::number(v));
      });
      ed = sb;
    } else if (f.type == FieldSpec::Choice) {
      auto* cb = new QComboBox(form_host);
      cb->addItems(QString::fromLatin1(f.choices).split('|'));
      connect(cb, &QComboBox::currentTextChanged, this, [this, path](const QString& v) {
        if (!updating_) set_field(path, v);
      });
      ed = cb;
    } else {
      auto* le = new QLineEdit(form_host);
      connect(le, &QLineEdit::editingFinished, this, [this, path, le] {
        if (!updating_) set_field(path, le->text().isEmpty() ? QStringLiteral("[]") : le->text());
      });
      ed = le;
    }
    ed->setObjectName(path);
    auto* msg = new QLabel(form_host);
    msg->setWordWrap(true);
    msg->setStyleSheet("color: #b01818;");
    msg->hide();
    auto* box = new QWidget(form_host);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(1);
    v->addWidget(ed);
    v->addWidget(msg);
    form->addRow(QString::fromLatin1(f.label), box);
    field.editor = ed;
    field.message = msg;
    fields_[path] = field;
  }
  text_ = new QPlainTextEdit(split);
  QFont mono("monospace");
  mono.setStyleHint(QFont::TypeWriter);
  text_->setFont(mono);
  text_->setObjectName("yaml");
  split->addWidget(form_host);
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
  // Round trip through yaml-cpp (comments in the text are not kept once the form is used).
  YAML::Node root;
  try {
    root = YAML::Load(text_->toPlainText().toStdString());
  } catch (const YAML::Exception& e) {
    list_->clear();
    list_->addItem(tr("The YAML text does not parse (%1); fix it before using the form.").arg(QString::fromStdString(e.what())));
    return;
  }
  if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
  const QStringList parts = dotted.split('.');
  YAML::Node value;
  try {
    value = YAML::Load(yaml_value.toStdString());
  } catch (const YAML::Exception&) {
    value = YAML::Node(yaml_value.toStdString());
  }
  if (parts.size() == 1) {
    root[parts[0].toStdString()] = value;
  } else {
    YAML::Node section = root[parts[0].toStdString()];
    if (!section.IsMap()) {
      section = YAML::Node(YAML::NodeType::Map);
      root[parts[0].toStdString()] = section;
    }
    section[parts[1].toStdString()] = value;
  }
  std::stringstream ss;
  ss << root;
  updating_ = true;
  text_->setPlainText(QString::fromStdString(ss.str()) + "\n");
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
  auto set_int = [&](const char* p, long long v) {
    if (auto* sb = qobject_cast<QSpinBox*>(fields_[QString::fromLatin1(p)].editor)) sb->setValue(static_cast<int>(v));
  };
  auto set_text = [&](const char* p, const QString& v) {
    QWidget* w = fields_[QString::fromLatin1(p)].editor;
    if (auto* le = qobject_cast<QLineEdit*>(w)) le->setText(v);
    if (auto* cb = qobject_cast<QComboBox*>(w)) cb->setCurrentText(v);
  };
  set_text("name", QString::fromStdString(s.name));
  set_int("cluster.nodes", s.cluster.nodes);
  set_int("cluster.gpus_per_node", s.cluster.gpus_per_node);
  set_int("model.tensor_model_parallel_size", s.tp());
  set_int("model.context_parallel_size", s.cp());
  set_int("model.pipeline_model_parallel_size", s.pp());
  set_text("model.cp_comm_type", QString::fromLatin1(to_string(s.comm_type_for_layer(0))));
  const auto& h = s.model.hierarchical_context_parallel_sizes;
  set_text("model.hierarchical_context_parallel_sizes",
           h.size() == 2 ? QStringLiteral("[%1, %2]").arg(h[0]).arg(h[1]) : QString());
  set_int("model.seq_length", s.model.seq_length);
  set_int("model.num_attention_heads", s.model.num_attention_heads);
  set_int("model.num_query_groups", s.model.num_query_groups);
  set_text("model.attn_mask_type", QString::fromLatin1(to_string(s.model.attn_mask_type)));
  updating_ = false;
}

}  // namespace hcpsim::gui
