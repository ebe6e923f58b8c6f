#pragma once
// Writers for a CompareResult: a human table and the JSON of `hcpsim compare --format json`.
#include <iosfwd>
#include <string>

#include "engine/compare/trace_compare.h"

namespace hcpsim {

// JSON: {"matched":N,"overall":{...},"by_kind":{kind:{mean_rel_error,max_rel_error,count,...}},
// "by_pass":{...},"by_rank":{"0":{...}},"spans":{pass:{predicted_s,measured_s,rel_error}},
// "worst":[{task,rank,kind,pass,name,predicted_s,measured_s,rel_error}],"missing_in_measured":[ids],
// "missing_in_predicted":[ids],"duplicates":[ids],"mismatched":[{task,what}],"too_short":[ids]}.
// `indent` < 0 writes one line.
std::string compare_to_json(const CompareResult& r, int indent = 2);

// Text: one table per grouping (kind, pass, rank), the pass spans, the worst tasks, and a list of
// missing / mismatched tasks (at most `max_listed` ids each, then a count).
void write_compare_text(const CompareResult& r, std::ostream& os, std::size_t max_listed = 20);

}  // namespace hcpsim
