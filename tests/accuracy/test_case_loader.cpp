// Case files: every loader error names FILE:LINE:COL, the field and what is valid; folder checks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/accuracy/case_loader.h"

using namespace hcpsim;
using namespace hcpsim::accuracy;

namespace {

const std::string kData = HCPSIM_ACCURACY_DATA;

// The text of the CaseError thrown while loading `file` ("" when it loads).
std::string error_of(const std::string& file) {
  try {
    load_case_file(file);
  } catch (const CaseError& e) {
    return e.what();
  }
  return "";
}

void expect_contains(const std::string& text, const std::string& part) {
  EXPECT_NE(text.find(part), std::string::npos) << "expected to find:\n  " << part << "\nin:\n" << text;
}

}  // namespace

TEST(CaseLoader, UnknownKeyAtItsPositionWithSuggestion) {
  const std::string f = kData + "/bad/unknown-key.yaml";
  const std::string e = error_of(f);
  expect_contains(e, f + ":5:1: error: mesured: unknown key 'mesured'");
  expect_contains(e, "measured");   // the suggestion
}

TEST(CaseLoader, MetricOfAnotherKindListsTheValidOnes) {
  const std::string f = kData + "/bad/wrong-metric.yaml";
  expect_contains(error_of(f), f + ":7:9: error: metric: 'bus_bandwidth_GBps' is not a metric of kind kernel; "
                                   "valid: tflops, time_ms");
}

TEST(CaseLoader, MeasuredMustBePositive) {
  const std::string f = kData + "/bad/measured-zero.yaml";
  expect_contains(error_of(f), f + ":8:11: error: measured: must be > 0 (got 0)");
}

TEST(CaseLoader, UnknownRole) {
  const std::string f = kData + "/bad/bad-role.yaml";
  expect_contains(error_of(f), f + ":2:7: error: role: 'test' is not valid; valid: fit, holdout");
}

TEST(CaseLoader, KeyOfAnotherKindNamesItsKind) {
  const std::string f = kData + "/bad/other-kind-key.yaml";
  expect_contains(error_of(f), f + ":8:1: error: gpu: 'gpu' belongs to kind: kernel, not to kind: collective");
}

TEST(CaseLoader, MissingRequiredField) {
  const std::string f = kData + "/bad/missing-source.yaml";
  expect_contains(error_of(f), f + ":1:1: error: source: missing required field 'source'");
}

TEST(CaseLoader, OverrideOfAnUnknownScenarioField) {
  const std::string f = kData + "/bad/bad-override.yaml";
  const std::string e = error_of(f);
  expect_contains(e, f + ":8:3: error: overrides.model.context_paralel_size: unknown scenario field "
                         "'model.context_paralel_size'");
  expect_contains(e, "model.context_parallel_size");
}

TEST(CaseLoader, EveryErrorOfAFileIsReported) {
  const std::string f = kData + "/bad/bad-kernel.yaml";
  const std::string e = error_of(f);
  expect_contains(e, f + ":13:13: error: kernel.kv_heads: heads (12) must be a multiple of kv_heads (8)");
  expect_contains(e, f + ":17:19: error: flops_convention: 'papers' is not valid; valid: fa, exact");
}

TEST(CaseLoader, TextErrors) {
  auto err = [](const std::string& text) {
    try {
      load_case_text(text, "t.yaml");
    } catch (const CaseError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  expect_contains(err("kind: [kernel\n"), "t.yaml:");
  expect_contains(err("- a\n- b\n"), "t.yaml:1:1: error: a case is a YAML mapping, found a list");
  expect_contains(err("kind: bench\n"), "t.yaml:1:7: error: kind: 'bench' is not valid; valid: kernel, collective, scenario");
  const std::string causal = err(
      "kind: kernel\nrole: fit\nsource: {citation: c, where: w}\nsetup: s\ngpu: h100-sxm\n"
      "kernel: {pass: forward, family: fa3, batch: 1, seq_q: 8192, seq_kv: 1024, heads: 8, head_dim: 64, causal: true}\n"
      "metric: time_ms\nmeasured: 1\n");
  expect_contains(causal, "t.yaml:6:55: error: kernel.seq_q: a causal kernel needs seq_q <= seq_kv (got 8192 > 1024)");
  expect_contains(err("name: Big Case\nkind: kernel\n"), "t.yaml:1:7: error: name: 'Big Case' is not a valid case name");
  // A very long name is refused by length (no regex: one recursing per character overflowed the stack).
  expect_contains(err("name: " + std::string(30000, 'a') + "\nkind: kernel\n"),
                  "...' is not a valid case name; use 1 to 128 characters");
  // Case files are read with the scenario's YAML reader: a key given twice, a number that is not
  // finite and a yes/no for a flag are refused as in a scenario file.
  expect_contains(err("kind: kernel\nkind: kernel\n"), "t.yaml:2:1: error: kind: duplicate key 'kind'");
  const std::string kernel = "kind: kernel\nrole: fit\nsource: {citation: c, where: w}\nsetup: s\ngpu: h100-sxm\nmetric: time_ms\n";
  expect_contains(err(kernel + "measured: .inf\n"), "t.yaml:7:11: error: measured: expected a number, got '.inf'");
  expect_contains(err(kernel + "measured: 1\nkernel: {pass: forward, family: fa3, batch: 1, seq_q: 8, seq_kv: 8, "
                               "heads: 8, head_dim: 64, causal: yes}\n"),
                  "error: kernel.causal: expected true or false, got 'yes'");
}

TEST(CaseLoader, OnlyRegularFilesAreRead) {
  // A device is refused before it is opened (reading /dev/zero whole would never end).
  expect_contains(error_of("/dev/zero"), "/dev/zero");
  expect_contains(error_of(kData + "/no-such-case.yaml"), "no-such-case.yaml");
}

TEST(CaseLoader, ReadsEveryFieldOfAKernelCase) {
  const AccuracyCase c = load_case_file(kData + "/suite/kernel-fa2-bwd-causal.yaml");
  EXPECT_EQ(c.name, "kernel-fa2-bwd-causal");   // from the file name
  EXPECT_EQ(c.kind, CaseKind::Kernel);
  EXPECT_EQ(c.role, CaseRole::Holdout);
  EXPECT_EQ(c.metric, "time_ms");
  EXPECT_DOUBLE_EQ(c.measured, 9.5);
  EXPECT_EQ(c.backend, "analytic");
  EXPECT_EQ(c.kernel.gpu, "a100-sxm-80gb");
  EXPECT_EQ(c.kernel.pass, KernelPass::Backward);
  EXPECT_EQ(c.kernel.family, "fa2");
  EXPECT_EQ(c.kernel.batch, 2);
  EXPECT_EQ(c.kernel.heads, 32);
  EXPECT_EQ(c.kernel.kv_heads, 8);
  EXPECT_TRUE(c.kernel.causal);
  EXPECT_EQ(c.location_of("kernel.kv_heads").line, 13);
}

TEST(CaseLoader, KvHeadsDefaultsToHeadsAndOverridesKeepTheirOrder) {
  const AccuracyCase k = load_case_file(kData + "/suite/kernel-fwd-2k.yaml");
  EXPECT_EQ(k.kernel.kv_heads, k.kernel.heads);
  EXPECT_EQ(k.group, "fwd-lengths");
  const AccuracyCase s = load_case_file(kData + "/suite/cp-a2a-32k.yaml");
  ASSERT_EQ(s.scenario.overrides.size(), 3u);
  EXPECT_EQ(s.scenario.overrides[0], "model.seq_length=32768");
  EXPECT_EQ(s.scenario.overrides[1], "model.cp_comm_type=a2a");
  EXPECT_EQ(s.scenario.overrides[2], "simulation.passes=[forward]");
  EXPECT_TRUE(std::filesystem::exists(s.scenario.path)) << s.scenario.path;
}

TEST(CaseFolder, LoadsTheSuiteSortedByFile) {
  const auto cases = load_case_folder(kData + "/suite");
  ASSERT_EQ(cases.size(), 11u);
  EXPECT_EQ(cases.front().name, "cp-a2a-32k");
  EXPECT_EQ(cases.back().name, "nccl-sendrecv-ib");
}

TEST(CaseFolder, NamesEveryBadFile) {
  try {
    load_case_folder(kData + "/bad");
    FAIL() << "the bad folder loaded";
  } catch (const CaseError& e) {
    EXPECT_EQ(e.by_file().size(), 8u);
  }
}

TEST(CaseFolder, NotAFolderEmptyOrMissing) {
  const auto tmp = std::filesystem::temp_directory_path() / ("hcpsim-acc-empty-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  std::ofstream(tmp / "notes.txt") << "not a case\n";
  EXPECT_THROW(case_files_in(tmp.string()), std::invalid_argument);
  try {
    case_files_in(tmp.string());
  } catch (const std::invalid_argument& e) {
    expect_contains(e.what(), "holds no case files");
  }
  try {
    case_files_in((tmp / "notes.txt").string());
  } catch (const std::invalid_argument& e) {
    expect_contains(e.what(), "is a file, not a folder");
  }
  try {
    case_files_in((tmp / "nope").string());
  } catch (const std::invalid_argument& e) {
    expect_contains(e.what(), "no such folder");
  }
  std::filesystem::remove_all(tmp);
}

TEST(CaseFolder, DuplicateNamesAndMixedGroupMetrics) {
  const auto tmp = std::filesystem::temp_directory_path() / ("hcpsim-acc-dup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(tmp);
  std::filesystem::copy_file(kData + "/suite/kernel-fwd-2k.yaml", tmp / "a.yaml");
  std::filesystem::copy_file(kData + "/suite/kernel-fwd-2k.yaml", tmp / "b.yaml");   // same name: kernel-fwd-2k
  {
    std::ofstream c(tmp / "c.yaml");
    c << "kind: kernel\nrole: fit\ngroup: fwd-lengths\nsource: {citation: c, where: w}\nsetup: s\ngpu: h100-sxm\n"
         "kernel: {pass: forward, family: fa3, batch: 1, seq_q: 4096, seq_kv: 4096, heads: 8, head_dim: 64, causal: false}\n"
         "metric: tflops\nflops_convention: fa\nmeasured: 400\n";
  }
  try {
    load_case_folder(tmp.string());
    FAIL() << "loaded";
  } catch (const CaseError& e) {
    const std::string w = e.what();
    expect_contains(w, (tmp / "b.yaml").string() + ":1:1: error: name: case name 'kernel-fwd-2k' is also used by");
    expect_contains(w, (tmp / "c.yaml").string() + ":3:1: error: group: group 'fwd-lengths' mixes metrics: tflops here, "
                                                    "time_ms in");
  }
  std::filesystem::remove_all(tmp);
}
