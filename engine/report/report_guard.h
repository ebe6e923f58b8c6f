#pragma once
// The last guard of every report writer (text, JSON, CSV): a time, throughput, byte count or memory
// figure that is negative or not finite is a bug in hcpsim, so it is thrown as InternalError
// (engine/core/internal_error.h) instead of being printed as a result.
#include "engine/report/report.h"

namespace hcpsim {

// Throws InternalError naming the first impossible value of `r`.
void check_report_values(const Report& r);

}  // namespace hcpsim
