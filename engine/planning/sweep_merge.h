#pragma once
// `hcpsim sweep merge`: joins the part files of a sharded sweep (engine/planning/sweep_shard.h) into
// the file a single run writes: the same columns, one row per point, in point order.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/planning/sweep_result.h"

namespace hcpsim::planning {

struct MergedSweep {
  std::vector<std::string> columns;    // axis columns
  std::vector<PointResult> results;    // every point once, in point order
  nlohmann::json sweep;                // the description the parts share
  int shards = 0;
  std::string metric;                  // the sweep's default sort metric
};

// Reads every part and checks that they are all shards of one sweep (same sweep_id, same N, one
// format), that each shard 1..N is given exactly once, that every row is a point of its own shard,
// no point appears twice and none is missing. Throws std::runtime_error naming the files (one line
// per problem); std::invalid_argument when `parts` is empty.
MergedSweep merge_shard_files(const std::vector<std::string>& parts);

}  // namespace hcpsim::planning
