#include "engine/scenario/yaml_documents.h"

#include <yaml-cpp/eventhandler.h>

#include <sstream>

namespace hcpsim::detail {

namespace {

struct Stop {};

class Counter : public YAML::EventHandler {
 public:
  explicit Counter(YamlDocumentScan& scan) : scan_(scan) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (scan_.documents > 0 && mark.pos == last_start_.pos) {   // no text consumed since the last one
      scan_.stalled = true;
      scan_.stall_mark = mark;
      throw Stop{};
    }
    last_start_ = mark;
    content_ = false;
    if (++scan_.documents > YamlDocumentScan::kMaxDocuments) throw Stop{};
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, true); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark, false); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, const std::string&) override {
    node(mark, false);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark, false);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(mark, false);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark, bool is_null) {
    if (content_) return;   // only the document's first (root) node matters
    content_ = true;
    if (scan_.documents == 1) scan_.first_is_null = is_null;
    if (scan_.documents == 2) scan_.second_content_mark = mark;
  }

  YamlDocumentScan& scan_;
  YAML::Mark last_start_;
  bool content_ = false;
};

}  // namespace

YamlDocumentScan scan_yaml_documents(const std::string& text) {
  YamlDocumentScan scan;
  std::istringstream in(text);
  YAML::Parser parser(in);
  Counter counter(scan);
  try {
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const Stop&) {
  }
  return scan;
}

}  // namespace hcpsim::detail
