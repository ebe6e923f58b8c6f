// The last guard of the writers: an impossible number is an InternalError, never printed.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "engine/core/internal_error.h"
#include "engine/report/report.h"
#include "engine/report/report_guard.h"

namespace hcpsim {
namespace {

Report plausible() {
  Report r;
  r.scenario = "guard";
  r.backend = "test";
  r.world_size = 2;
  r.has_forward = true;
  r.attention_forward_s = 1e-3;
  r.makespan_s = 2e-3;
  r.step_s = 4e-3;
  r.overlap_fraction = 0.5;
  r.slowest_rank = 1;
  LayerTimes l;
  l.attention_forward_s = 1e-3;
  l.slowest_rank_forward = 1;   // backward was not simulated: its rank stays -1
  r.layers.push_back(l);
  return r;
}

TEST(ReportGuard, PlausibleReportPassesAndNotSimulatedPassIsNull) {
  const Report r = plausible();
  EXPECT_NO_THROW(check_report_values(r));
  const std::string json = report_to_json(r);
  EXPECT_NE(json.find("\"slowest_rank_backward\": null"), std::string::npos) << json;
  EXPECT_EQ(json.find("-1"), std::string::npos) << json;
}

TEST(ReportGuard, NonFiniteOrNegativeValuesAreInternalErrors) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  struct Bad {
    const char* field;
    void (*set)(Report&, double);
    double value;
  };
  const Bad bads[] = {
      {"attention.forward_s", [](Report& r, double v) { r.attention_forward_s = v; }, nan},
      {"attention.forward_tflops_per_gpu", [](Report& r, double v) { r.attention_forward_tflops_per_gpu = v; }, -5},
      {"step_s", [](Report& r, double v) { r.step_s = v; }, inf},
      {"bytes.inter_node", [](Report& r, double v) { r.bytes_inter_node = v; }, -1},
      {"overlap_fraction", [](Report& r, double v) { r.overlap_fraction = v; }, 1.5},
      {"layers[0].attention_forward_s", [](Report& r, double v) { r.layers[0].attention_forward_s = v; }, nan},
  };
  for (const auto& b : bads) {
    Report r = plausible();
    b.set(r, b.value);
    for (auto writer : {+[](const Report& x) { return report_to_json(x); }, +[](const Report& x) { return report_to_csv(x); },
                        +[](const Report& x) { return report_to_text(x); }}) {
      try {
        (void)writer(r);
        ADD_FAILURE() << b.field << " = " << b.value << " was written";
      } catch (const InternalError& e) {
        EXPECT_NE(std::string(e.what()).find(b.field), std::string::npos) << e.what();
      }
    }
  }
  Report r = plausible();
  r.layers[0].slowest_rank_forward = -1;   // the forward pass was simulated: -1 is a bug
  EXPECT_THROW(check_report_values(r), InternalError);
}

TEST(TraceGuard, ImpossibleEventIsAnInternalErrorAndNothingIsWritten) {
  Trace t;
  t.world_size = 1;
  TraceEvent e;
  e.name = "attn";
  e.start_s = 1;
  e.end_s = 2;
  t.events.push_back(e);
  std::ostringstream ok;
  EXPECT_NO_THROW(write_chrome_trace(t, ok));
  t.events[0].end_s = 0.5;   // ends before it starts
  std::ostringstream bad;
  EXPECT_THROW(write_chrome_trace(t, bad), InternalError);
  EXPECT_TRUE(bad.str().empty());
  t.events[0].end_s = 2;
  t.events[0].bytes = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(write_chrome_trace(t, bad), InternalError);
}

}  // namespace
}  // namespace hcpsim
