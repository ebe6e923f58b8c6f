#pragma once
// Shards of a sweep for job arrays (Slurm `sbatch --array`): `hcpsim sweep FILE --shard I/N` runs the
// points whose index (position in the Cartesian product, first axis slowest, from 0) satisfies
// index mod N == I - 1. The rule depends only on the sweep, never on what is already done, so a
// shard resumed with --resume keeps exactly its points. Each shard's file starts with a header line
// that describes the sweep (file hashes, overrides, axes, backend, resolved configuration) and the
// shard, so that `hcpsim sweep merge` can refuse parts of other sweeps (engine/planning/sweep_merge.h).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/planning/sweep_spec.h"

namespace hcpsim::planning {

struct ShardSpec {
  int index = 1;   // I, 1-based
  int count = 1;   // N
};

// Parses "I/N" (1 <= I <= N <= 100000). Throws std::invalid_argument saying what is valid.
ShardSpec parse_shard(const std::string& text);
// "2/3"
std::string to_string(const ShardSpec& s);
bool in_shard(std::size_t point_index, const ShardSpec& s);
// The points of `points` that belong to the shard (their SweepPoint::index decides).
std::vector<SweepPoint> shard_points(const std::vector<SweepPoint>& points, const ShardSpec& s);

// 64-bit FNV-1a of `bytes` as 16 hex digits (a fingerprint, not a cryptographic hash).
std::string fnv1a64_hex(const std::string& bytes);

// What decides a sweep's points and results. The fields: file (FILE as given, for messages only),
// file_fnv1a64 (FILE's bytes), base (the base scenario path), base_fnv1a64, overrides (the sweep
// file's, then the command line's), axes (columns, and per value its labels and overrides), points
// (count), backend, recompute, metric and configuration (the base scenario resolved with the
// overrides, Scenario::configuration(); "" when it does not load without the axes).
struct SweepDescriptionInput {
  std::string file;
  std::string file_text;
  std::string base_text;
  std::vector<std::string> extra_overrides;
  std::string recompute;
  std::string configuration;
};
nlohmann::json describe_sweep(const SweepSpec& spec, const SweepDescriptionInput& in);
// Fingerprint of a description: every field but `file`, so that shards started from other
// directories (or with another spelling of the path) still belong together.
std::string sweep_id(const nlohmann::json& description);

struct ShardHeader {
  ShardSpec shard;
  std::string sweep_id;
  nlohmann::json sweep;   // describe_sweep()
};

// The first line of a shard's results file: {"hcpsim_sweep_shard": {...}}, after "# " in CSV.
std::string shard_header_line(const ShardHeader& h, bool csv);
// The header of a results file; std::nullopt when its first line is no shard header (or the file
// is missing or empty). Throws std::runtime_error "FILE:1: ..." when the header is malformed.
std::optional<ShardHeader> read_shard_header(const std::string& path);

// The sweep a description stands for (its axes; base, overrides and backend do not matter to the
// point list) and its columns, to list every point of the sweep in order.
SweepSpec spec_of_description(const nlohmann::json& description);

}  // namespace hcpsim::planning
