#include "engine/app/help_footer.h"

namespace hcpsim::app {

std::string format_help_footer(const HelpFooter& footer) {
  std::string out;
  if (!footer.before.empty()) out += footer.before + "\n\n";
  out += "Examples:";
  for (const HelpExample& e : footer.examples) {
    for (std::size_t i = 0; i < e.lines.size(); ++i) out += (i == 0 ? "\n  " : " \\\n      ") + e.lines[i];
    if (!e.note.empty()) out += "   # " + e.note;
  }
  if (!footer.after.empty()) out += "\n\n" + footer.after;
  return out;
}

}  // namespace hcpsim::app
