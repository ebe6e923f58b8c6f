#pragma once
// Counts the YAML documents of a scenario text before it is loaded. yaml-cpp's LoadAll never returns
// on some malformed text (a ',' outside brackets starts an empty document again and again without
// consuming it, until memory runs out); this scan stops at the first document that makes no progress
// and at a document cap, so the loader can report a positioned syntax error instead.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>

namespace hcpsim::detail {

struct YamlDocumentScan {
  std::size_t documents = 0;        // counted up to kMaxDocuments + 1
  bool first_is_null = true;        // the first document holds nothing (comments only, or empty)
  bool stalled = false;             // a document started where the previous one did: malformed text
  YAML::Mark stall_mark;            // where
  YAML::Mark second_content_mark;   // first node of the second document (for the "N documents" error)
  static constexpr std::size_t kMaxDocuments = 1000;
};

// Throws YAML::ParserException (with its mark) on a syntax error, like YAML::LoadAll.
YamlDocumentScan scan_yaml_documents(const std::string& text);

}  // namespace hcpsim::detail
