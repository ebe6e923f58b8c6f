#pragma once
// The part files of a sharded or resumed `hcpsim sweep`: the header that identifies the sweep and the
// check that --resume continues the same one.
#include <optional>
#include <string>
#include <vector>

#include "engine/planning/sweep_shard.h"
#include "engine/planning/sweep_spec.h"

namespace hcpsim::cli {

// The whole file as text ("" when it cannot be read).
std::string file_text(const std::string& path);

// The header of this run's part file: the shard and what defines the sweep (sweep_shard.h).
planning::ShardHeader shard_header(const planning::SweepSpec& spec, const std::string& file,
                                   const std::vector<std::string>& extra, const std::string& recompute,
                                   const planning::ShardSpec& shard);

// --resume of a results file: it must be the same shard of the same sweep (or, without --shard, no
// shard at all). Returns an error message, "" when it may be continued.
std::string resume_mismatch(const std::string& out, const std::optional<planning::ShardHeader>& mine);

}  // namespace hcpsim::cli
