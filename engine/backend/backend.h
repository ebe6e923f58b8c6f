#pragma once
// Backend: runs a TaskGraph and reports one TraceEvent per task. Chosen by name at run time
// through BackendRegistry; callers ask for capabilities, never for identity.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/cost/cost_model.h"
#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"
#include "engine/scenario/scenario.h"
#include "engine/trace/trace.h"

namespace hcpsim {

struct BackendCapabilities {
  bool predicts_time = false;      // events carry simulated/measured times
  bool models_contention = false;  // links are shared between concurrent flows
  bool computes_values = false;    // real numbers flow through the tasks
};

// Progress of a long run: tasks done, total, simulated seconds so far.
using ProgressFn = std::function<void(std::size_t done, std::size_t total, double sim_time_s)>;

struct RunContext {
  const Scenario& scenario;
  const RankLayout& layout;
  const CostModel& cost;
  ProgressFn progress;             // may be empty
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual BackendCapabilities capabilities() const = 0;
  // Runs the graph; throws std::runtime_error naming stuck tasks when it cannot finish.
  virtual void run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) = 0;
};

class BackendRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Backend>()>;
  void add(const std::string& name, const std::string& description, Factory f);
  // Throws std::invalid_argument listing the valid names when `name` is unknown.
  std::unique_ptr<Backend> create(const std::string& name) const;
  std::vector<std::string> names() const;
  std::string description(const std::string& name) const;
  bool has(const std::string& name) const;
  // The one message for an unknown name: "unknown backend 'x'; valid backends in this build: a b".
  std::string unknown_name_message(const std::string& name) const;

 private:
  struct Entry {
    std::string description;
    Factory factory;
  };
  std::map<std::string, Entry> entries_;
};

}  // namespace hcpsim
