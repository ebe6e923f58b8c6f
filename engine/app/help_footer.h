#pragma once
// The footer of a front end's --help text, with the examples given as data: every command's help
// lays its examples out the same way, and tests/cli/run_help_examples.py finds them under the
// "Examples:" line and runs each one as written from the repository root.
#include <string>
#include <vector>

namespace hcpsim::app {

// One example command, as typed from the repository root. A long command is split over `lines`
// (shown with a trailing " \" and a deeper indent, so that a shell joins them back); `note`, if
// any, is shown after the command as a shell comment.
struct HelpExample {
  std::vector<std::string> lines;
  std::string note = {};
};

struct HelpFooter {
  std::string before = {};                 // prose above the examples (empty: none)
  std::vector<HelpExample> examples = {};  // at least one
  std::string after = {};                  // prose below the examples (empty: none)
};

// `before`, "Examples:" with one example a line (indented by two spaces, continuation lines by
// six), and `after`, separated by blank lines; no trailing newline.
std::string format_help_footer(const HelpFooter& footer);

}  // namespace hcpsim::app
