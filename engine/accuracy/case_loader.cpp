// Case files: every field read through CaseReader, which records each field's position and reports
// every problem with FILE:LINE:COL, the dotted field and the valid choices.
#include "engine/accuracy/case_loader.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "engine/accuracy/case_reader.h"
#include "engine/measured/measured_input.h"
#include "engine/scenario/limits.h"
#include "engine/scenario/scenario_file.h"
#include "engine/scenario/schema.h"

namespace hcpsim::accuracy {

namespace fs = std::filesystem;

namespace {

using detail::CaseReader;
using detail::join;
using hcpsim::detail::node_kind;

const std::vector<std::string> kCommonKeys{"name",  "kind",  "role",    "source", "setup",   "notes",
                                           "metric", "measured", "measured_trace", "group", "backend"};
const std::map<std::string, std::string> kKindKeys{{"gpu", "kernel"},          {"kernel", "kernel"},
                                                   {"flops_convention", "kernel"}, {"cluster", "collective"},
                                                   {"collective", "collective"}, {"scenario", "scenario"},
                                                   {"overrides", "scenario"}, {"kernel_family", "scenario"}};

std::vector<std::string> keys_of_kind(const std::string& kind) {
  std::vector<std::string> keys = kCommonKeys;
  for (const auto& [k, owner] : kKindKeys)
    if (owner == kind) keys.push_back(k);
  return keys;
}

std::map<std::string, std::string> keys_of_other_kinds(const std::string& kind) {
  std::map<std::string, std::string> out;
  for (const auto& [k, owner] : kKindKeys)
    if (owner != kind) out[k] = owner;
  return out;
}

void read_source(CaseReader& r, const YAML::Node& root, AccuracyCase& c) {
  const YAML::Node src = root["source"];
  if (!src.IsDefined() || src.IsNull()) {
    r.error(root, "source", "missing required field 'source'",
            {"source: {citation: \"authors, title, venue year\", where: \"Table 2, row ...\", url: ...}"});
    return;
  }
  if (!r.check_map(src, "source", {"citation", "where", "url"})) return;
  if (auto v = r.string(src, "source", "citation", true)) c.citation = *v;
  if (auto v = r.string(src, "source", "where", true)) c.where = *v;
  if (auto v = r.string(src, "source", "url", false)) c.url = *v;
}

void read_kernel(CaseReader& r, const YAML::Node& root, AccuracyCase& c) {
  auto& k = c.kernel;
  if (auto v = r.string(root, "", "gpu", true)) k.gpu = *v;
  const YAML::Node kn = root["kernel"];
  if (!kn.IsDefined() || kn.IsNull()) {
    r.error(root, "kernel", "missing required field 'kernel'",
            {"kernel: {pass, family, batch, seq_q, seq_kv, heads, kv_heads, head_dim, causal}"});
  } else if (r.check_map(kn, "kernel",
                         {"pass", "family", "batch", "seq_q", "seq_kv", "heads", "kv_heads", "head_dim", "causal"})) {
    if (auto v = r.choice(kn, "kernel", "pass", {"forward", "backward", "forward_backward"}, true))
      k.pass = *v == "forward" ? KernelPass::Forward : *v == "backward" ? KernelPass::Backward : KernelPass::ForwardBackward;
    if (auto v = r.choice(kn, "kernel", "family", {"fa2", "fa3", "cudnn", "other"}, true)) k.family = *v;
    if (auto v = r.integer(kn, "kernel", "batch", true, 1)) k.batch = static_cast<int>(*v);
    if (auto v = r.integer(kn, "kernel", "seq_q", true, 1)) k.seq_q = *v;
    if (auto v = r.integer(kn, "kernel", "seq_kv", true, 1)) k.seq_kv = *v;
    if (auto v = r.integer(kn, "kernel", "heads", true, 1)) k.heads = static_cast<int>(*v);
    if (auto v = r.integer(kn, "kernel", "kv_heads", false, 1)) k.kv_heads = static_cast<int>(*v);
    else if (!kn["kv_heads"].IsDefined()) k.kv_heads = k.heads;
    if (auto v = r.integer(kn, "kernel", "head_dim", true, 1)) k.head_dim = static_cast<int>(*v);
    if (auto v = r.boolean(kn, "kernel", "causal", true)) k.causal = *v;
    if (k.causal && k.seq_q > 0 && k.seq_kv > 0 && k.seq_q > k.seq_kv)
      r.error(kn["seq_q"], "kernel.seq_q",
              "a causal kernel needs seq_q <= seq_kv (got " + std::to_string(k.seq_q) + " > " + std::to_string(k.seq_kv) + ")",
              {"the causal mask is aligned bottom-right, as FlashAttention does: query i sees keys up to seq_kv - seq_q + i"});
    if (k.heads > 0 && k.kv_heads > 0 && k.heads % k.kv_heads != 0)
      r.error(kn["kv_heads"], "kernel.kv_heads",
              "heads (" + std::to_string(k.heads) + ") must be a multiple of kv_heads (" + std::to_string(k.kv_heads) + ")",
              {"grouped-query attention shares each KV head among heads/kv_heads query heads"});
  }
  if (c.metric == "tflops") {
    if (auto v = r.choice(root, "", "flops_convention", {"fa", "exact"}, true)) k.flops_convention = *v;
  } else if (root["flops_convention"].IsDefined()) {
    r.error(root["flops_convention"], "flops_convention", "only used with metric: tflops (this case's metric is " +
                                                              (c.metric.empty() ? std::string("missing") : c.metric) + ")",
            {"remove it, or measure tflops"});
  }
}

TaskKind collective_op(const std::string& s) {
  if (s == "send_recv") return TaskKind::SendRecv;
  if (s == "all_to_all") return TaskKind::AllToAll;
  if (s == "all_gather") return TaskKind::AllGather;
  if (s == "reduce_scatter") return TaskKind::ReduceScatter;
  return TaskKind::AllReduce;
}

void read_collective(CaseReader& r, const YAML::Node& root, AccuracyCase& c) {
  const YAML::Node cl = root["cluster"];
  if (!cl.IsDefined() || cl.IsNull()) {
    r.error(root, "cluster", "missing required field 'cluster'", {"cluster: {preset: dgx-h100, nodes: 1}"});
  } else if (!cl.IsMap()) {
    r.error(cl, "cluster", std::string("expected a mapping (a scenario cluster: section), found ") + node_kind(cl));
  }
  const YAML::Node co = root["collective"];
  if (!co.IsDefined() || co.IsNull()) {
    r.error(root, "collective", "missing required field 'collective'", {"collective: {op: all_reduce, ranks: 8, bytes: 1073741824}"});
    return;
  }
  if (!r.check_map(co, "collective", {"op", "ranks", "bytes"})) return;
  if (auto v = r.choice(co, "collective", "op", {"send_recv", "all_to_all", "all_gather", "reduce_scatter", "all_reduce"}, true))
    c.collective.op = collective_op(*v);
  if (auto v = r.integer(co, "collective", "ranks", true, 2)) c.collective.ranks = static_cast<int>(*v);
  if (auto v = r.number(co, "collective", "bytes", true, true)) c.collective.bytes = *v;
}

// `measured_trace`: a profiled run (PyTorch profiler traces, a folder of them or Nsight Systems
// exports; a path relative to the case file) gives the measured value: its step time
// (measured_step_s) for metric train_step_s, the only metric a trace states by itself.
void read_measured_trace(CaseReader& r, const YAML::Node& root, const std::string& path, AccuracyCase& c) {
  if (c.kind != CaseKind::Scenario || c.metric != "train_step_s") {
    r.error(root["measured_trace"], "measured_trace", "a measured trace gives the metric train_step_s of a scenario case",
            {"give the number with measured: for other metrics"});
    return;
  }
  const fs::path p = (fs::path(c.file).parent_path() / path).lexically_normal();
  try {
    c.measured = measured_step_s(read_measured_run({p.string()}, KernelClassifier()));
  } catch (const std::exception& e) {
    r.error(root["measured_trace"], "measured_trace", e.what(), {"the path is relative to the folder of this case file"});
  }
}

void read_scenario(CaseReader& r, const YAML::Node& root, AccuracyCase& c) {
  const YAML::Node sc = root["scenario"];
  if (!sc.IsDefined() || sc.IsNull()) {
    r.error(root, "scenario", "missing required field 'scenario'",
            {"a path relative to this file (scenario: ../../scenarios/X.yaml) or an inline scenario mapping"});
  } else if (sc.IsScalar()) {
    const fs::path base = fs::path(c.file).parent_path();
    const fs::path p = (base / sc.Scalar()).lexically_normal();
    std::error_code ec;
    if (!fs::is_regular_file(p, ec))
      r.error(sc, "scenario", "no scenario file '" + sc.Scalar() + "' (looked for " + p.string() + ")",
              {"the path is relative to the folder of this case file"});
    c.scenario.path = p.string();
  } else if (!sc.IsMap()) {
    r.error(sc, "scenario", std::string("expected a file path or a scenario mapping, found ") + node_kind(sc));
  }
  // The attention kernel family the measured run used (validation/published/README.md): the cost
  // model's `cluster.efficiency.attention_kernel`, applied before the case's own overrides.
  // `other` keeps the scenario's own setting.
  if (auto fam = r.choice(root, "", "kernel_family", {"fa2", "fa3", "cudnn", "other"}, false); fam && *fam != "other")
    c.scenario.overrides.push_back("cluster.efficiency.attention_kernel=" + *fam);
  const YAML::Node ov = root["overrides"];
  if (!ov.IsDefined() || ov.IsNull()) return;
  if (!ov.IsMap()) {
    r.error(ov, "overrides", std::string("expected a mapping of key.path: value, found ") + node_kind(ov),
            {"overrides: {model.context_parallel_size: 8}"});
    return;
  }
  for (const auto& kv : ov) {
    const std::string key = kv.first.Scalar();
    const std::string p = "overrides." + key;
    r.record(kv.first, p);
    if (!schema::is_known_path(key) || key.find("[]") != std::string::npos) {
      r.error(kv.first, p, "unknown scenario field '" + key + "'", {schema::did_you_mean(key, schema::all_paths())});
      continue;
    }
    YAML::Emitter em;
    em.SetMapFormat(YAML::Flow);
    em.SetSeqFormat(YAML::Flow);
    em << kv.second;
    c.scenario.overrides.push_back(key + "=" + em.c_str());
  }
}

}  // namespace

CaseError::CaseError(std::vector<std::pair<std::string, Diagnostics>> by_file)
    : std::runtime_error([&] {
        std::string s;
        for (const auto& [file, d] : by_file) s += format_diagnostics(d, file);
        return s;
      }()),
      by_file_(std::move(by_file)) {}

void throw_case_error(const AccuracyCase& c, const std::string& field, std::string message,
                      std::vector<std::string> hints, std::vector<std::pair<std::string, Diagnostics>> more) {
  Diagnostics d;
  const SourceLocation loc = c.location_of(field);
  d.error(field, std::move(message), loc.line, loc.column, std::move(hints));
  std::vector<std::pair<std::string, Diagnostics>> all{{c.file, d}};
  all.insert(all.end(), more.begin(), more.end());
  throw CaseError(std::move(all));
}

YAML::Node case_document(const AccuracyCase& c) { return YAML::Load(c.text); }

AccuracyCase load_case_text(const std::string& text, const std::string& file) {
  AccuracyCase c;
  c.file = file;
  c.text = text;
  Diagnostics diags;
  auto fail = [&]() { throw CaseError({{file, diags}}); };
  YAML::Node parsed;
  try {
    parsed = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    diags.error("", "YAML syntax error: " + e.msg, e.mark.line + 1, e.mark.column + 1);
    fail();
  }
  const YAML::Node& root = parsed;   // const: lookups of absent keys must not add them
  CaseReader r(diags, c);
  if (!root.IsMap()) {
    r.error(root, "", std::string("a case is a YAML mapping, found ") + node_kind(root),
            {"see validation/published/README.md for the fields"});
    fail();
  }
  // The kind decides which keys are valid, so it is read first.
  const auto kind = r.choice(root, "", "kind", {"kernel", "collective", "scenario"}, true);
  if (kind) {
    c.kind = *kind == "kernel" ? CaseKind::Kernel : *kind == "collective" ? CaseKind::Collective : CaseKind::Scenario;
    r.set_kind(*kind);
    r.check_map(root, "", keys_of_kind(*kind), keys_of_other_kinds(*kind));
  }
  const std::string stem = fs::path(file).stem().string();
  c.name = stem;
  if (auto v = r.string(root, "", "name", false)) c.name = *v;
  // Checked by hand, length first: a regex recurses per character and overflows on long input.
  const bool name_ok = !c.name.empty() && c.name.size() <= limits::kMaxNameChars &&
                       std::all_of(c.name.begin(), c.name.end(), [](char ch) {
                         return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
                                ch == '-';
                       });
  if (!name_ok) {
    if (root["name"].IsDefined())
      r.error(root["name"], "name", "'" + c.name.substr(0, 64) + (c.name.size() > 64 ? "...'" : "'") +
                                    " is not a valid case name; use 1 to 128 characters of [a-z0-9._-]");
    else
      r.error(root, "name", "the file name '" + stem + "' is not a valid case name; use [a-z0-9._-]+ or set name:");
  }
  if (auto v = r.choice(root, "", "role", {"fit", "holdout"}, true)) c.role = *v == "fit" ? CaseRole::Fit : CaseRole::Holdout;
  read_source(r, root, c);
  if (auto v = r.string(root, "", "setup", true)) c.setup = *v;
  if (auto v = r.string(root, "", "notes", false)) c.notes = *v;
  if (auto v = r.string(root, "", "group", false)) c.group = *v;
  if (auto v = r.choice(root, "", "backend", {"analytic", "simgrid"}, false)) c.backend = *v;
  if (kind) {
    const auto& valid = metrics_of(c.kind);
    if (auto v = r.string(root, "", "metric", true)) {
      if (std::find(valid.begin(), valid.end(), *v) == valid.end())
        r.error(root["metric"], "metric", "'" + *v + "' is not a metric of kind " + *kind + "; valid: " + join(valid));
      else
        c.metric = *v;
    }
  }
  if (root["measured_trace"].IsDefined()) {
    if (root["measured"].IsDefined()) r.error(root["measured"], "measured", "give measured or measured_trace, not both");
    else if (auto v = r.string(root, "", "measured_trace", true)) read_measured_trace(r, root, *v, c);
  } else if (auto v = r.number(root, "", "measured", true, true)) {
    c.measured = *v;
  }
  if (kind) {
    switch (c.kind) {
      case CaseKind::Kernel: read_kernel(r, root, c); break;
      case CaseKind::Collective: read_collective(r, root, c); break;
      case CaseKind::Scenario: read_scenario(r, root, c); break;
    }
  }
  if (diags.has_errors()) fail();
  return c;
}

AccuracyCase load_case_file(const std::string& path) {
  // The scenario files' safe reader: regular files only, size-capped, never blocking.
  std::string text;
  Diagnostics d;
  if (!read_scenario_bytes(path, text, d, "case file")) throw CaseError({{path, d}});
  if (text.empty()) {
    d.error("", "the case file is empty", 1, 1);
    throw CaseError({{path, d}});
  }
  return load_case_text(text, path);
}

std::vector<std::string> case_files_in(const std::string& dir) {
  std::error_code ec;
  const auto st = fs::status(dir, ec);
  if (ec || !fs::exists(st)) throw std::invalid_argument("'" + dir + "': no such folder");
  if (!fs::is_directory(st))
    throw std::invalid_argument("'" + dir + "' is a file, not a folder of cases; pass the folder that holds it (" +
                                fs::path(dir).parent_path().string() + ")");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) files.push_back(e.path().string());
  }
  if (ec) throw std::invalid_argument("'" + dir + "': cannot list the folder: " + ec.message());
  if (files.empty())
    throw std::invalid_argument("'" + dir + "' holds no case files (*.yaml); the format is validation/published/README.md");
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<AccuracyCase> load_case_folder(const std::string& dir) {
  std::vector<AccuracyCase> cases;
  std::vector<std::pair<std::string, Diagnostics>> errors;
  for (const auto& f : case_files_in(dir)) {
    try {
      cases.push_back(load_case_file(f));
    } catch (const CaseError& e) {
      errors.insert(errors.end(), e.by_file().begin(), e.by_file().end());
    }
  }
  // Checks across files: unique names; one metric per group.
  std::map<std::string, const AccuracyCase*> by_name, group_first;
  for (const auto& c : cases) {
    if (auto [it, fresh] = by_name.emplace(c.name, &c); !fresh) {
      Diagnostics d;
      const auto loc = c.location_of("name");
      d.error("name", "case name '" + c.name + "' is also used by " + it->second->file, loc.line, loc.column,
              {"names must be unique in a folder; set name: in one of them"});
      errors.emplace_back(c.file, d);
    }
    if (c.group.empty()) continue;
    if (auto [it, fresh] = group_first.emplace(c.group, &c); !fresh && it->second->metric != c.metric) {
      Diagnostics d;
      const auto loc = c.location_of("group");
      d.error("group", "group '" + c.group + "' mixes metrics: " + c.metric + " here, " + it->second->metric + " in " +
                           it->second->file,
              loc.line, loc.column, {"the order check compares one metric; use one metric per group"});
      errors.emplace_back(c.file, d);
    }
  }
  if (!errors.empty()) throw CaseError(std::move(errors));
  return cases;
}

}  // namespace hcpsim::accuracy
