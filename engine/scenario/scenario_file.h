#pragma once
// Reading a scenario file's bytes safely: only a regular file (a FIFO, a device such as /dev/zero or
// a directory is refused before it is opened), at most limits::kMaxScenarioFileBytes, opened
// non-blocking so that nothing a path can name makes the read wait forever.
#include <string>

#include "engine/core/diagnostics.h"

namespace hcpsim {

// Reads `path` into `text`; false with an error in `diags` (naming the path and why) when it cannot.
// `what` names the file in messages ("scenario file", "calibration file").
bool read_scenario_bytes(const std::string& path, std::string& text, Diagnostics& diags,
                         const std::string& what = "scenario file");

// The same read for a file that is not a scenario (a calibration, kernel rules): its text, or
// std::runtime_error "<path>: error: <kind>: <why>" (`what` names the file in the reason, as above).
std::string read_file_or_throw(const std::string& path, const std::string& what, const std::string& kind);

}  // namespace hcpsim
