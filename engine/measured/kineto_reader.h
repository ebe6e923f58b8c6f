#pragma once
// Reader of PyTorch profiler (Kineto) traces: the Chrome-trace JSON torch.profiler writes, plain or
// gzip, streamed with a fixed buffer (a trace of any size is never held as a document). Keeps GPU
// work (cat kernel, gpu_memcpy, gpu_memset), host launches (cuda_runtime / cuda_driver, for their
// correlation ids and times) and step / pass ranges (user_annotation, gpu_user_annotation, and
// ProfilerStep#N operators as PyTorch 1.8 records them).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/measured/kernel_rules.h"
#include "engine/measured/measured_trace.h"

namespace hcpsim {

struct KinetoRank {
  MeasuredRank rank;          // rank.rank: from distributedInfo, else the file name, else `rank_hint`
  int world_size = 0;         // distributedInfo.world_size; 0 when absent
  std::string rank_from;      // "distributedInfo", "file name" or "given"
};

// `rank_hint` >= 0 is used when the trace has no distributedInfo.rank (FILE@N on the command line).
// Throws std::runtime_error naming the file: not JSON / truncated (with the byte offset), not a
// profiler trace (no traceEvents), no GPU kernels, or no rank known (saying how to give it).
KinetoRank read_kineto_trace(const std::string& path, int rank_hint, const KernelClassifier& classifier,
                             NameTable& names, std::vector<std::int8_t>& kind_cache);

// The rank a file name states ("rank-3.Dec_01.pt.trace.json.gz", "rank_12.json", "trace_rank7.json");
// -1 when it states none.
int rank_from_file_name(const std::string& path);

}  // namespace hcpsim
