#pragma once
// AccuracyCase: one published (or user-measured) number and the setup that produced it, as read
// from a case file of an accuracy folder. The format is validation/published/README.md.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::accuracy {

enum class CaseKind { Kernel, Collective, Scenario };
enum class CaseRole { Fit, Holdout };

const char* to_string(CaseKind k);   // "kernel", "collective", "scenario"
const char* to_string(CaseRole r);   // "fit", "holdout"

// `kind: kernel`: one attention kernel on one GPU of a GPU preset.
struct KernelSpec {
  std::string gpu;                 // GPU preset name (scenarios/hardware/gpus)
  Pass pass = Pass::Forward;
  std::string family;              // fa2 | fa3 | cudnn | other (recorded; see docs/accuracy.md)
  int batch = 1;
  std::int64_t seq_q = 0;          // query tokens per sequence
  std::int64_t seq_kv = 0;         // key/value tokens per sequence
  int heads = 0;                   // query heads
  int kv_heads = 0;                // key/value heads
  int head_dim = 0;
  bool causal = false;
  std::string flops_convention = "fa";   // fa | exact (only for metric tflops)
};

// `kind: collective`: one NCCL operation as nccl-tests measures it.
struct CollectiveSpec {
  TaskKind op = TaskKind::AllReduce;   // SendRecv, AllToAll, AllGather, ReduceScatter or AllReduce
  int ranks = 0;                       // GPUs taking part, rank order over the cluster
  double bytes = 0;                    // nccl-tests "size" column, bytes
};

// `kind: scenario`: a scenario file (relative to the case file) or an inline mapping, plus overrides.
struct ScenarioSpec {
  std::string path;                    // resolved path of the scenario file; empty when inline
  std::vector<std::string> overrides;  // "key.path=value", in file order
};

struct AccuracyCase {
  std::string file;                    // case file as given (for messages)
  std::string text;                    // the file's text (inline nodes are re-read from it with their marks)
  std::string name;
  CaseKind kind = CaseKind::Kernel;
  CaseRole role = CaseRole::Fit;
  std::string metric;                  // unit included in the name, e.g. "time_ms"
  double measured = 0;
  std::string group;                   // empty: no group
  std::string backend = "analytic";
  std::string citation, where, url, setup, notes;
  KernelSpec kernel;
  CollectiveSpec collective;
  ScenarioSpec scenario;
  // Positions of the case's fields ("metric", "kernel.heads", ...), for errors found later.
  std::map<std::string, SourceLocation> locations;

  SourceLocation location_of(const std::string& field) const;
};

// The metrics of a kind, in the order the format lists them.
const std::vector<std::string>& metrics_of(CaseKind k);

// True when a larger value of the metric means a faster run (throughputs and bandwidths).
bool higher_is_better(const std::string& metric);

}  // namespace hcpsim::accuracy
