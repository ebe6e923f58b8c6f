#include "kernels/emulated_run.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/task_timer.h"

namespace hcpsim::kernels {
namespace {

// Tasks with equal keys do identical work, so one measurement serves them all.
std::string shape_key(const TaskGraph& g, const Task& t) {
  std::ostringstream os;
  os << static_cast<int>(t.kind) << ':';
  if (t.kind == TaskKind::AttentionForward || t.kind == TaskKind::AttentionBackward) {
    const AttentionShape& s = g.attention_of(t);
    os << s.batch << ',' << s.q_len << ',' << s.kv_len << ',' << s.heads << ',' << s.kv_heads << ','
       << s.head_dim_qk << ',' << static_cast<int>(mask_of(s.section));
  } else {
    os << static_cast<long long>(t.bytes);
  }
  return os.str();
}

}  // namespace

Placement place_on_graph(const TaskGraph& g, const std::vector<double>& duration_s) {
  if (duration_s.size() != g.size()) throw std::invalid_argument("place_on_graph: one duration per task needed");
  // Kahn's order; a CommOp is placed once all of its member tasks are ready.
  const std::size_t n = g.size();
  std::vector<double> start(n, 0.0), end(n, 0.0), ready(n, 0.0);
  std::vector<std::size_t> remaining(n);
  std::vector<TaskId> queue;
  const std::vector<std::uint32_t> indeg = g.in_degrees();
  for (TaskId i = 0; i < n; ++i) {
    remaining[i] = indeg[i];
    if (remaining[i] == 0) queue.push_back(i);
  }
  std::vector<std::size_t> comm_ready(g.comms().size(), 0);
  std::size_t placed = 0;
  auto finish = [&](TaskId id, std::vector<TaskId>& next) {
    ++placed;
    for (TaskId s : g.successors(id)) {
      ready[s] = std::max(ready[s], end[id]);
      if (--remaining[s] == 0) next.push_back(s);
    }
  };
  while (!queue.empty()) {
    std::vector<TaskId> next;
    for (TaskId id : queue) {
      const Task& t = g.task(id);
      if (t.comm != kNone && t.comm < g.comms().size() && g.comms()[t.comm].tasks.size() > 1) {
        const CommOp& op = g.comms()[t.comm];
        if (++comm_ready[t.comm] < op.tasks.size()) continue;
        double s = 0, dur = 0;
        for (TaskId m : op.tasks) {
          s = std::max(s, ready[m]);
          dur = std::max(dur, duration_s[m]);
        }
        for (TaskId m : op.tasks) {
          start[m] = s;
          end[m] = s + dur;
        }
        for (TaskId m : op.tasks) finish(m, next);
        continue;
      }
      start[id] = ready[id];
      end[id] = start[id] + duration_s[id];
      finish(id, next);
    }
    queue.swap(next);
  }
  if (placed != n) {
    std::ostringstream os;
    os << "emulation: " << n - placed << " tasks never became ready (a collective whose members wait on each other?)";
    for (TaskId i = 0, shown = 0; i < n && shown < 5; ++i) {
      if (remaining[i] > 0 || (g.task(i).comm != kNone && end[i] == 0 && start[i] == 0 && duration_s[i] > 0)) {
        os << (shown ? ", " : ": ") << i << " " << g.display_name(g.task(i)) << " rank " << g.task(i).rank;
        ++shown;
      }
    }
    throw std::runtime_error(os.str());
  }

  return {std::move(start), std::move(end)};
}

Trace run_emulated(const TaskGraph& g, const EmulateOptions& options, const EmulateProgress& progress) {
  if (options.iterations < 1 || options.warmup < 0) {
    throw std::invalid_argument("emulation: iterations must be >= 1 and warmup >= 0");
  }
  TaskTimer timer(g, options.seed);
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};

  // 1. Measure every distinct task shape once.
  std::map<std::string, double> measured;
  std::vector<std::string> keys(g.size());
  for (const Task& t : g.tasks()) {
    keys[g.id_of(t)] = shape_key(g, t);
    measured.emplace(keys[g.id_of(t)], -1.0);
  }
  std::size_t done = 0;
  for (const Task& t : g.tasks()) {
    double& d = measured[keys[g.id_of(t)]];
    if (d >= 0) continue;
    d = timer.time_task(t, options.warmup, options.iterations, stream);
    if (progress) progress(++done, measured.size());
  }

  std::vector<double> dur(g.size());
  for (const Task& t : g.tasks()) dur[g.id_of(t)] = measured[keys[g.id_of(t)]];
  const Placement pl = place_on_graph(g, dur);
  const std::vector<double>& start = pl.start_s;
  const std::vector<double>& end = pl.end_s;

  Trace tr;
  tr.scenario = g.scenario_name;
  tr.backend = "cuda-emulated";
  tr.world_size = g.world_size;
  tr.gpus_per_node = options.gpus_per_node;
  tr.events.reserve(g.size());
  for (const Task& t : g.tasks()) tr.events.push_back(make_event(g, t, start[g.id_of(t)], end[g.id_of(t)]));
  return tr;
}

}  // namespace hcpsim::kernels
