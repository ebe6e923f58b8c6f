#pragma once
// Fits the cost model's calibration tables (engine/cost/calibration.h) from a profiled run of a
// scenario: each measured kernel is matched to the task of the scenario's graph it ran, and the
// efficiency that makes the model's time equal the measured one is solved for:
//   attention:  eff = FLOPs / ((t - kernel_overhead_s) * attention peak)   (one point per shape)
//   GEMM:       eff = FLOPs / ((t - kernel_overhead_s) * GEMM peak)       (bf16 or FP8 peak, as the model)
//   send/recv:  eff = bytes sent / ((t - link latency) * link bandwidth)   (intra- or inter-node)
//   collectives (all-gather, reduce-scatter, all-reduce, all-to-all), by op, link class and message:
//               eff = model eff x model bandwidth time / (t - nccl_launch_s - latency)
//               (engine/measured/collective_fit.h), with the bus bandwidth in NCCL's convention beside
//   launch:     kernel_overhead_s from the shortest kernels, nccl_launch_s from host launch and GPU start
//               (engine/measured/launch_fit.h); the fit above subtracts the ones it writes
// where t is the kernel's measured time without the contention the model adds by its own terms
// (compute slowed by concurrent communication, a transfer waiting for its peer): the measured time
// times the task's time alone over its time in the model's analytic prediction of the scenario.
// Points of one key (shape, FLOPs, message bytes and link class) take the median of their samples.
// Matching: on each rank and profiled step, the measured kernels of one kind (and pass, for
// attention) are paired in time order with the graph's tasks of that kind and pass in task order;
// when there are k times as many kernels as tasks (k layers or micro-batches) the tasks repeat. A
// group whose counts do not match that way is left out, and said so.
#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/cost/calibration.h"
#include "engine/measured/launch_fit.h"
#include "engine/measured/measured_trace.h"
#include "engine/scenario/scenario.h"

namespace hcpsim {

struct FittedTable {
  std::string table;       // "attention", "gemm", "links.intra_node send_recv", "links.inter_node all_gather", ...
  std::size_t samples = 0; // measured kernels used
  std::size_t points = 0;  // points written
};

// One collective point of the links tables, with its bus bandwidth.
struct FittedCollective {
  std::string op;            // "all_gather", "reduce_scatter", "all_reduce", "all_to_all"
  std::string link_table;    // "links.intra_node" or "links.inter_node"
  double message_bytes = 0;  // the entry's bytes: one flow's message
  int ranks = 0;             // members of the calls
  std::size_t samples = 0;
  double bus_Bps = 0;        // median bus bandwidth, NCCL's convention (collective_fit.h)
  double efficiency = 0;     // the entry's efficiency
};

struct TraceFitResult {
  Calibration calibration;
  std::vector<FittedTable> tables;   // filled tables only
  std::vector<FittedCollective> collectives;
  LaunchOverheads launch;            // what the trace's launch times gave
  std::vector<std::string> notes;    // groups left out, samples refused, tables not fitted
};

// Throws std::invalid_argument when the scenario's graph cannot be built; never on trace content.
TraceFitResult fit_calibration_from_trace(const Scenario& s, const MeasuredRun& run);

// "filled attention from N kernels (P points)" per table, one line per collective point, then the notes.
void write_fit_summary(const TraceFitResult& r, std::ostream& os);

}  // namespace hcpsim
