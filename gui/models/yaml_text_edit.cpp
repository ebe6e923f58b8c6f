#include "gui/models/yaml_text_edit.h"

#include <QStringList>

namespace hcpsim::gui {
namespace {

int indent_of(const QString& line) {
  int i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

// Lines that carry no key: blank, comment-only, or the document marker.
bool is_filler(const QString& line) {
  const QString t = line.trimmed();
  return t.isEmpty() || t.startsWith('#') || t == "---";
}

// Position of a trailing " #" comment outside quotes, or -1.
int comment_start(const QString& line, int from) {
  QChar quote;
  for (int i = from; i < line.size(); ++i) {
    const QChar c = line[i];
    if (!quote.isNull()) {
      if (c == quote) quote = QChar();
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && i > 0 && line[i - 1].isSpace()) {
      return i;
    }
  }
  return -1;
}

// The line in [begin, end) at `indent` that starts "key:", or -1.
int find_key(const QStringList& lines, int begin, int end, int indent, const QString& key) {
  for (int i = begin; i < end; ++i) {
    if (is_filler(lines[i]) || indent_of(lines[i]) != indent) continue;
    const QString rest = lines[i].mid(indent);
    if (rest.startsWith(key + ":") && (rest.size() == key.size() + 1 || rest[key.size() + 1].isSpace())) return i;
  }
  return -1;
}

// End (exclusive) of the block that belongs to the key on line `at` (lines indented deeper, or filler).
int block_end(const QStringList& lines, int at) {
  const int indent = indent_of(lines[at]);
  int end = at + 1, last = at + 1;
  for (; end < lines.size(); ++end) {
    if (is_filler(lines[end])) continue;
    const bool list_item = lines[end].mid(indent_of(lines[end])).startsWith("- ") && indent_of(lines[end]) == indent;
    if (indent_of(lines[end]) <= indent && !list_item) break;
    last = end + 1;
  }
  return last;
}

bool fail(QString* error, const QString& msg) {
  if (error) *error = msg;
  return false;
}

}  // namespace

bool set_yaml_value(QString& text, const QString& dotted, const QString& value, QString* error) {
  const bool trailing_newline = text.endsWith('\n');
  QStringList lines = text.split('\n');
  if (trailing_newline) lines.removeLast();
  const QStringList keys = dotted.split('.');
  int begin = 0, end = static_cast<int>(lines.size()), indent = 0;
  for (int k = 0; k < keys.size(); ++k) {
    const bool last = k + 1 == keys.size();
    const int at = find_key(lines, begin, end, indent, keys[k]);
    if (at < 0) {   // add the rest of the path after the section's last line
      int insert = end;
      while (insert > begin && is_filler(lines[insert - 1])) --insert;
      for (int j = k; j < keys.size(); ++j) {
        const QString pad(indent + 2 * (j - k), ' ');
        lines.insert(insert++, pad + keys[j] + ":" + (j + 1 == keys.size() ? " " + value : QString()));
      }
      break;
    }
    const int colon = indent + static_cast<int>(keys[k].size()) + 1;
    const int comment = comment_start(lines[at], colon);
    const QString inline_value = lines[at].mid(colon, comment < 0 ? -1 : comment - colon).trimmed();
    const int block = block_end(lines, at);
    if (last) {
      const QString tail = comment < 0 ? QString() : "  " + lines[at].mid(comment);
      lines[at] = lines[at].left(colon) + " " + value + tail;
      // A block value below the key (a block list, a mapping) is replaced by the new value.
      for (int i = block - 1; i > at; --i) lines.removeAt(i);
      break;
    }
    if (!inline_value.isEmpty())
      return fail(error, QStringLiteral("%1: line %2 holds '%3' inline; edit the text to change it")
                             .arg(keys.mid(0, k + 1).join('.')).arg(at + 1).arg(inline_value));
    begin = at + 1;
    end = block;
    int child = -1;
    for (int i = begin; i < end && child < 0; ++i)
      if (!is_filler(lines[i])) child = indent_of(lines[i]);
    indent = child > indent_of(lines[at]) ? child : indent_of(lines[at]) + 2;
  }
  text = lines.join('\n') + (trailing_newline ? "\n" : "");
  return true;
}

}  // namespace hcpsim::gui
