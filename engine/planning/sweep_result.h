#pragma once
// The result of one sweep point and how it is written: CSV rows or JSON lines (appendable, one
// point per line, so an interrupted sweep keeps what it finished), read back for --resume, and a
// fixed-width table sorted by a metric.
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace hcpsim::planning {

enum class PointStatus { Ok, Invalid, Error };
const char* to_string(PointStatus s);

// Metrics of one point. NaN = not available (e.g. no whole-layer timing).
struct PointMetrics {
  double step_s;                    // whole training step (pipeline, DP, optimizer), or prefill of the batch
  double attention_forward_s;       // CP attention block of one layer
  double attention_backward_s;
  double layer_forward_s;
  double layer_backward_s;
  double attention_tflops_per_gpu;  // forward + backward attention FLOPs / time, per GPU, TFLOP/s
  double exposed_comm_s;            // communication not hidden behind compute (fwd + bwd, one layer)
  double memory_per_gpu_bytes;      // estimate_memory total
  double tokens_per_s_per_gpu;      // global batch tokens / step_s / GPUs
  double mfu;                       // Megatron-LM model FLOPs (full attention square) at the peak of
                                    // each op's precision / step_s (step_report.h)
  double pipeline_bubble_fraction;  // idle share of the busiest pipeline stage
  double ttft_s;                    // prefill: time to first token (NaN for training)
  double mfu_causal;                // mfu with the causal attention square halved
  PointMetrics();
};

struct PointResult {
  std::vector<std::string> labels;  // axis values, one per column
  PointStatus status = PointStatus::Ok;
  std::string comm_type;            // "p2p", ..., or "" when unknown
  bool fits = false;                // memory estimate fits the GPU
  PointMetrics metrics;
  std::string message;              // validation error, failure reason, or warnings
  double wall_s = 0;                // time the evaluation took
};

// Names of the numeric metrics, in column order ("step_s", "attention_forward_s", ...,
// "memory_per_gpu_gib"). Memory is shown in GiB in tables and files.
const std::vector<std::string>& metric_names();
// Value of a named metric (NaN when absent); throws std::invalid_argument listing the names.
double metric_value(const PointResult& r, const std::string& name);
// True when larger is better for the metric (TFLOP/s); times and memory: smaller is better.
bool metric_higher_is_better(const std::string& name);

nlohmann::json to_json(const PointResult& r, const std::vector<std::string>& columns);
// Throws std::runtime_error when fields are missing or malformed.
PointResult point_from_json(const nlohmann::json& j, const std::vector<std::string>& columns);

// CSV header line (no newline) and one row (no newline); fields quoted as needed.
std::string csv_header(const std::vector<std::string>& columns);
std::string csv_row(const PointResult& r);
// Splits one CSV line into fields (RFC 4180 quoting).
std::vector<std::string> split_csv_line(const std::string& line);

enum class FileFormat { Csv, JsonLines };
// .json / .jsonl -> JsonLines, anything else CSV.
FileFormat file_format_for(const std::string& path);

// Results already in an output file (for --resume). A missing file gives an empty list; a last line
// without its newline (the sweep was killed while writing it) is ignored, and so is a preamble line.
// Throws std::runtime_error when the header's axis columns differ from `columns`.
std::vector<PointResult> read_results_file(const std::string& path,
                                           const std::vector<std::string>& columns);

// True for the optional first line of a results file that carries metadata instead of a point: "# ..."
// in CSV, {"hcpsim_sweep_shard": ...} in JSON lines (the shard header, engine/planning/sweep_shard.h).
bool is_preamble_line(const std::string& line);

// Writes a whole results file (the optional preamble line, the CSV header, one row or JSON line per
// result, in the given order) to PATH.tmp and renames it over PATH, so that a reader never sees half
// a file. Throws std::runtime_error naming the file when it cannot be written.
void write_results_file(const std::string& path, const std::vector<PointResult>& rs,
                        const std::vector<std::string>& columns, const std::string& preamble = "");

// Sorts ok points by the metric (best first; NaN last), then invalid and failed points.
void sort_results(std::vector<PointResult>& rs, const std::string& metric);

// Fixed-width text table.
void write_table(std::ostream& os, const std::vector<PointResult>& rs,
                 const std::vector<std::string>& columns);
void write_csv(std::ostream& os, const std::vector<PointResult>& rs,
               const std::vector<std::string>& columns);
void write_json(std::ostream& os, const std::vector<PointResult>& rs,
                const std::vector<std::string>& columns);

}  // namespace hcpsim::planning
