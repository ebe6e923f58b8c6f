#pragma once
// Reading accuracy cases: one YAML file per case (validation/published/README.md), or every case
// file of a folder. Every problem is reported as FILE:LINE:COL, the field, and what would be valid.
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/accuracy/accuracy_case.h"
#include "engine/core/diagnostics.h"

namespace hcpsim::accuracy {

// Thrown when case files cannot be used; what() is every diagnostic, one per line, compiler style.
class CaseError : public std::runtime_error {
 public:
  explicit CaseError(std::vector<std::pair<std::string, Diagnostics>> by_file);
  // (file, its diagnostics), in the order the files were read.
  const std::vector<std::pair<std::string, Diagnostics>>& by_file() const { return by_file_; }

 private:
  std::vector<std::pair<std::string, Diagnostics>> by_file_;
};

// Throws a CaseError for case `c` at the position of `field`; `more` appends diagnostics of other
// files (a scenario the case refers to).
[[noreturn]] void throw_case_error(const AccuracyCase& c, const std::string& field, std::string message,
                                   std::vector<std::string> hints = {},
                                   std::vector<std::pair<std::string, Diagnostics>> more = {});

// The case file's YAML document, parsed again from c.text: nodes keep their marks, so a scenario
// assembled from them reports positions in the case file.
YAML::Node case_document(const AccuracyCase& c);

// Parses the text of one case; `file` names it in messages and anchors a relative scenario path.
// Throws CaseError with every problem found.
AccuracyCase load_case_text(const std::string& text, const std::string& file);
// Reads and parses one case file. Throws CaseError.
AccuracyCase load_case_file(const std::string& path);

// The case files of a folder: its *.yaml and *.yml files (not sub-folders), sorted by name.
// Throws std::invalid_argument when `dir` does not exist, is not a folder, or holds no case file.
std::vector<std::string> case_files_in(const std::string& dir);

// Loads every case of a folder. Checks across files too: two cases with one name, a group whose
// cases have different metrics. Throws CaseError naming every bad file.
std::vector<AccuracyCase> load_case_folder(const std::string& dir);

}  // namespace hcpsim::accuracy
