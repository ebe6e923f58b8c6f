#pragma once
// Helpers of the distributed-sweep tests: the test sweep (36 points, some invalid), a shell runner,
// and a checker that two results files hold the same points, row for row, in the sweep's order.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/planning/sweep_result.h"

namespace hcpsim::test {

namespace fs = std::filesystem;

// The axes of the test sweep, first slowest: 4 x 3 x 3 = 36 points; cp=16 needs more GPUs than the
// scenario has, so its 9 points are invalid rows (with a message that contains commas).
inline const std::vector<std::string> kCps{"2", "4", "8", "16"};
inline const std::vector<std::string> kSeqs{"16384", "32768", "65536"};
inline const std::vector<std::string> kComms{"p2p", "a2a", "all_gather"};

// `extra`: more key=value overrides (they must come before the --vary options, which take lists).
inline std::string sweep_args(const std::string& extra = "") {
  return std::string("'") + HCPSIM_SOURCE_DIR + "/scenarios/llama3-8b-64k-dgx-h100-p2p.yaml' simulation.backend=analytic " +
         extra + " "
         "--vary model.context_parallel_size=2,4,8,16 --vary model.seq_length=16384,32768,65536 "
         "--vary model.cp_comm_type=p2p,a2a,all_gather";
}

// The labels of point i, computed here independently of hcpsim's expansion.
inline std::vector<std::string> expected_labels(std::size_t i) {
  return {kCps[i / 9], kSeqs[(i / 3) % 3], kComms[i % 3]};
}
constexpr std::size_t kPoints = 36;

struct Shell {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs `cmd` with /bin/sh in `dir`; stdout and stderr captured.
inline Shell shell(const std::string& cmd, const fs::path& dir) {
  const fs::path out = dir / "cmd.out", err = dir / "cmd.err";
  const std::string full = "cd '" + dir.string() + "' && " + cmd + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(full.c_str());
  Shell r;
  if (status != -1 && WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline std::string hcpsim() { return std::string("'") + HCPSIM_EXE + "'"; }

struct Rows {
  std::string preamble;                         // first line when it is a shard header
  std::vector<std::string> header;              // CSV columns
  std::vector<std::vector<std::string>> rows;   // fields
};

inline Rows read_csv(const fs::path& p) {
  Rows t;
  std::istringstream in(slurp(p));
  std::string line;
  while (std::getline(in, line)) {
    if (t.header.empty() && t.preamble.empty() && line.rfind("# ", 0) == 0) {
      t.preamble = line;
      continue;
    }
    if (t.header.empty()) {
      t.header = planning::split_csv_line(line);
    } else {
      t.rows.push_back(planning::split_csv_line(line));
    }
  }
  return t;
}

// `actual` holds exactly the points `indices` of the test sweep, in that order, with the same fields
// as `reference` has for them (wall_s, the time each point took, aside). Fails on a missing, extra,
// reordered or different row.
inline void expect_rows(const fs::path& actual, const fs::path& reference, const std::vector<std::size_t>& indices) {
  const Rows a = read_csv(actual), r = read_csv(reference);
  ASSERT_EQ(a.header, r.header) << actual;
  ASSERT_EQ(r.rows.size(), kPoints) << reference << " must hold the whole sweep";
  ASSERT_EQ(a.rows.size(), indices.size()) << actual;
  std::size_t wall = a.header.size();
  for (std::size_t c = 0; c < a.header.size(); ++c)
    if (a.header[c] == "wall_s") wall = c;
  ASSERT_LT(wall, a.header.size()) << "no wall_s column";
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::size_t i = indices[k];
    const auto& ra = a.rows[k];
    const auto& rr = r.rows[i];
    ASSERT_EQ(ra.size(), a.header.size()) << actual << " row " << k;
    const std::vector<std::string> labels(ra.begin(), ra.begin() + 3);
    EXPECT_EQ(labels, expected_labels(i)) << actual << " row " << k;
    for (std::size_t c = 0; c < ra.size(); ++c) {
      if (c != wall) {
        EXPECT_EQ(ra[c], rr[c]) << actual << " row " << k << " column " << a.header[c];
      }
    }
  }
}

inline std::vector<std::size_t> all_points() {
  std::vector<std::size_t> v;
  for (std::size_t i = 0; i < kPoints; ++i) v.push_back(i);
  return v;
}

// The reference: a single run's file has every point in order, with the expected labels.
inline void expect_serial_file(const fs::path& p) {
  const Rows t = read_csv(p);
  ASSERT_EQ(t.rows.size(), kPoints) << p;
  std::size_t invalid = 0;
  for (std::size_t i = 0; i < kPoints; ++i) {
    EXPECT_EQ(std::vector<std::string>(t.rows[i].begin(), t.rows[i].begin() + 3), expected_labels(i));
    invalid += t.rows[i][3] == "invalid";
  }
  EXPECT_EQ(invalid, 9u) << "the cp=16 points are invalid rows";
}

// JSON lines without wall_s, one object per line.
inline std::vector<nlohmann::json> read_jsonl_without_wall(const fs::path& p) {
  std::vector<nlohmann::json> v;
  std::istringstream in(slurp(p));
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("hcpsim_sweep_shard")) continue;
    j.erase("wall_s");
    v.push_back(j);
  }
  return v;
}

}  // namespace hcpsim::test
