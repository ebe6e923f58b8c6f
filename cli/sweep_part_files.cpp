#include "cli/sweep_part_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/scenario/loader.h"

namespace hcpsim::cli {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

planning::ShardHeader shard_header(const planning::SweepSpec& spec, const std::string& file,
                                   const std::vector<std::string>& extra, const std::string& recompute,
                                   const planning::ShardSpec& shard) {
  using namespace planning;
  SweepDescriptionInput in;
  in.file = file;
  in.file_text = file_text(file);
  in.base_text = file_text(spec.base_path);
  in.extra_overrides = extra;
  in.recompute = recompute;
  try {
    LoadOptions lo;
    lo.overrides = spec.overrides;
    lo.overrides.insert(lo.overrides.end(), extra.begin(), extra.end());
    in.configuration = load_scenario_file(spec.base_path, lo).configuration();
  } catch (const std::exception&) {
    in.configuration = "";   // only the axes make it load; the file hashes still identify it
  }
  ShardHeader h;
  h.shard = shard;
  h.sweep = describe_sweep(spec, in);
  h.sweep_id = sweep_id(h.sweep);
  return h;
}

std::string resume_mismatch(const std::string& out, const std::optional<planning::ShardHeader>& mine) {
  using namespace planning;
  if (!std::filesystem::exists(out) || std::filesystem::file_size(out) == 0) return "";
  const std::optional<ShardHeader> theirs = read_shard_header(out);
  if (!mine && theirs)
    return out + " is shard " + to_string(theirs->shard) + " of a sharded sweep: resume it with --shard " +
           to_string(theirs->shard);
  if (mine && !theirs)
    return out + " has no shard header: it is not a part file of --shard " + to_string(mine->shard) +
           "; use another --out file";
  if (mine && theirs && theirs->sweep_id != mine->sweep_id)
    return out + " is a part of another sweep (sweep " + theirs->sweep_id + ", this one is " + mine->sweep_id +
           "): the sweep file, the base scenario, the overrides, the axes, the backend or --recompute changed; "
           "use another --out file";
  if (mine && theirs && (theirs->shard.index != mine->shard.index || theirs->shard.count != mine->shard.count))
    return out + " is shard " + to_string(theirs->shard) + ", not " + to_string(mine->shard) +
           ": use --shard " + to_string(theirs->shard) + " or another --out file";
  return "";
}

}  // namespace hcpsim::cli
