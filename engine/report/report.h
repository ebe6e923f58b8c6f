#pragma once
// Report: every metric hcpsim prints, computed from a Trace alone (so every backend, and real runs,
// are measured the same way). Formulas: docs/metrics.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cost/efficiency_source.h"
#include "engine/step/step_report.h"
#include "engine/trace/trace.h"

namespace hcpsim {

struct ReportOptions {
  int num_layers = 0;   // model.num_layers; the step time scales the simulated layers to it (0 = as simulated)
  double wall_s = 0;    // wall-clock seconds the backend took (reported, not derived)
  std::size_t critical_path_text_limit = 30;   // entries the text writer lists
};

// One layer's times (slowest rank), seconds; 0 when the pass was not simulated.
struct LayerTimes {
  int layer = 0;
  double attention_forward_s = 0, attention_backward_s = 0;
  double layer_forward_s = 0, layer_backward_s = 0;
  double exposed_comm_forward_s = 0, exposed_comm_backward_s = 0;
  int slowest_rank_forward = -1, slowest_rank_backward = -1;
};

// One task on the critical path, with the part of its interval the path spends in it.
struct CriticalPathEntry {
  TaskId task = 0;
  std::int32_t rank = 0;
  TaskKind kind = TaskKind::Copy;
  std::string name;
  double start_s = 0;   // when the path enters the task
  double end_s = 0;     // when the path leaves it
};

// Per-GPU memory from the memory model (engine/memory); simulate_scenario always fills it.
struct MemoryReport {
  double peak_bytes_per_gpu = 0;
  double capacity_bytes_per_gpu = 0;
  std::vector<std::pair<std::string, double>> breakdown_bytes;   // (item, bytes)
};

// How the job's ranks were simulated (engine/fold/fold_plan.h); simulate_scenario fills it.
struct FoldSummary {
  bool enabled = true;       // simulation.fold is auto
  bool folded = false;       // one unit was simulated for `replicas` identical units
  int simulated_ranks = 0;   // GPUs in the simulated graph
  int represented_ranks = 0; // GPUs of the whole job the report stands for
  int replicas = 1;          // represented_ranks / simulated_ranks when folded, else 1
  std::string note;          // why not folded, or which groups share links inside a unit; may be empty
};

struct Report {
  std::string scenario, backend;
  bool measured = false;                // a measured run (app::measure): its times are measured, not simulated
  std::string configuration;            // the resolved configuration (simulate_scenario fills it)
  std::vector<std::string> overrides;   // the overrides applied (simulate_scenario fills it)
  int world_size = 0, gpus_per_node = 0;   // of the simulated graph
  int cluster_world_size = 0;                // of the whole job (larger when replicas were simulated once)
  std::size_t tasks = 0;
  double wall_s = 0;
  int layers_simulated = 0, num_layers = 0;
  bool has_forward = false, has_backward = false;
  bool whole_layer = false;   // the trace has GEMMs / TP collectives around attention

  // Per layer averages over the simulated layers, seconds (slowest rank).
  double attention_forward_s = 0, attention_backward_s = 0;
  double exposed_comm_forward_s = 0, exposed_comm_backward_s = 0;
  double layer_forward_s = 0, layer_backward_s = 0;
  double attention_forward_tflops_per_gpu = 0, attention_backward_tflops_per_gpu = 0;

  double makespan_s = 0;   // whole trace, first start to last end
  double step_s = 0;       // makespan scaled to num_layers (one micro-batch, one pipeline stage)
  double overlap_fraction = 0;   // share of communication time hidden behind compute, all ranks
  double bytes_intra_node = 0, bytes_inter_node = 0;
  double compute_busy_s = 0, comm_busy_s = 0;   // summed over ranks (unions per rank)

  int slowest_rank = -1;          // rank whose last task ends last
  std::string slowest_rank_wait;  // its communication task with the most exposed time

  std::vector<LayerTimes> layers;
  std::vector<CriticalPathEntry> critical_path;
  double critical_path_compute_s = 0, critical_path_comm_s = 0, critical_path_idle_s = 0;

  std::optional<MemoryReport> memory;
  std::optional<FoldSummary> fold;
  // The whole step (training) or prefill composed from the layer times (engine/step); filled by
  // simulate_scenario when the scenario's batch and pipeline sizes divide.
  std::optional<StepReport> step;
  // The efficiency the cost model used for each quantity and where it came from (the scenario, an
  // override, a calibration file, a published table, a preset or the default); simulate_scenario fills it.
  EfficiencySources efficiency_sources;
};

class EventView;

// Computes the report. Precondition: events have end_s >= start_s. Empty traces give zeros.
Report compute_report(const Trace& t, const ReportOptions& options = {});
// The same over any view of the events (engine/trace/event_view.h); `header` gives scenario, backend,
// world size and GPUs per node (its events are not read).
Report compute_report(const EventView& events, const Trace& header, const ReportOptions& options = {});

// The critical path of a trace (docs/metrics.md "Critical path"), first task first.
std::vector<CriticalPathEntry> critical_path(const Trace& t);

// Writers. Text: a readable table with units (fixed precision, no wall time or paths, so golden
// files can diff it). JSON: the contract of docs/architecture.md plus extras. CSV: metric,value,unit rows.
std::string report_to_text(const Report& r, const ReportOptions& options = {});
std::string report_to_json(const Report& r);
std::string report_to_csv(const Report& r);

}  // namespace hcpsim
