#pragma once
// Scenario editor: a form of every field a planner changes (grouped as Megatron-Bridge groups its
// configuration: model, train, ddp, optimizer, mixed precision, comm overlap, cluster) next to the
// YAML text, both editable and kept in sync (a form edit rewrites only the value's line, so comments
// stay); live validation (load + validate, debounced) with each diagnostic shown under its field, as a
// wavy underline on its YAML line, and in a list.
#include <QWidget>
#include <map>
#include <memory>

#include "engine/core/diagnostics.h"
#include "engine/scenario/scenario.h"

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QTimer;

namespace hcpsim::gui {

class ScenarioEditor : public QWidget {
  Q_OBJECT
 public:
  explicit ScenarioEditor(QWidget* parent = nullptr);
  // Replaces the text (validated at once). `path` names the file in diagnostics and is where Save writes.
  void set_yaml(const QString& yaml, const QString& path);
  QString yaml() const;
  const QString& path() const { return path_; }
  // Sets one field in the YAML text (dotted path, e.g. "model.context_parallel_size"); value is YAML.
  void set_field(const QString& dotted, const QString& yaml_value);
  // Validates now (normally done 250 ms after the last edit).
  void validate_now();
  const Diagnostics& diagnostics() const { return diags_; }
  // Text under a form field (its diagnostics), "" when none; for tests.
  QString field_message(const QString& dotted) const;
  std::shared_ptr<const Scenario> scenario() const { return scenario_; }

 signals:
  // A scenario without errors after an edit (warnings allowed).
  void scenario_changed(std::shared_ptr<const Scenario> s);
  void diagnostics_changed(int errors, int warnings);

 private:
  void fill_form(const Scenario& s);
  QWidget* make_editor(int field, QWidget* parent);   // the input of kFields[field]
  struct Field {
    QWidget* editor = nullptr;
    QLabel* message = nullptr;
  };
  std::map<QString, Field> fields_;
  QPlainTextEdit* text_;
  QListWidget* list_;
  QTimer* timer_;
  QString path_;
  Diagnostics diags_;
  std::shared_ptr<const Scenario> scenario_;
  bool updating_ = false;
};

}  // namespace hcpsim::gui
