#pragma once
// What `compare`, `calibrate --from-trace` and `accuracy` accept as a measured run: PyTorch profiler
// (Kineto) traces, Nsight Systems SQLite exports, folders of them, or an hcpsim trace. A path may end
// in @N to state the rank of a file that does not record it (trace.json@3).
#include <string>
#include <vector>

#include "engine/measured/kernel_rules.h"
#include "engine/measured/measured_trace.h"

namespace hcpsim {

enum class TraceFormat { Hcpsim, Kineto, Nsys };
const char* to_string(TraceFormat f);   // "hcpsim", "kineto", "nsys"

// The format of one file, from its first bytes (gzip is looked through). Throws std::runtime_error
// naming the file when it cannot be read or is none of the three (saying what was expected).
TraceFormat detect_trace_format(const std::string& path);

// True when `input` is one file written by hcpsim (simulate / run --trace), compared task by task.
bool is_hcpsim_trace_file(const std::string& input);

// The files `inputs` stand for: a folder gives its *.json, *.json.gz and *.sqlite files (sorted), a
// file itself; the @N suffix stays on its file. Throws when a path does not exist or a folder holds
// no trace.
std::vector<std::string> expand_measured_inputs(const std::vector<std::string>& inputs);

// Reads profiler traces (not hcpsim traces) into one run. Throws std::runtime_error naming the file:
// unreadable, malformed, two files for one rank, mixed formats, or an hcpsim trace among them.
MeasuredRun read_measured_run(const std::vector<std::string>& inputs, const KernelClassifier& classifier);

}  // namespace hcpsim
