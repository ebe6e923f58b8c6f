#include "kernels/rank_schedule.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <set>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace hcpsim::kernels {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string fmt_seconds(double s) {
  std::string x = std::to_string(s);
  while (x.size() > 1 && x.back() == '0') x.pop_back();
  if (!x.empty() && x.back() == '.') x.pop_back();
  return x;
}

}  // namespace

std::vector<GroupKind> collective_group_kinds(const TaskGraph& g) {
  std::set<int> kinds;
  for (const CommOp& op : g.comms())
    if (op.kind != TaskKind::SendRecv) kinds.insert(static_cast<int>(op.group));
  std::vector<GroupKind> out;
  for (int k : kinds) out.push_back(static_cast<GroupKind>(k));
  return out;
}

std::vector<TaskId> rank_issue_order(const TaskGraph& g, int rank) {
  std::vector<TaskId> mine;
  for (TaskId id : g.topological_order())
    if (g.task(id).rank == rank) mine.push_back(id);
  return mine;
}

std::string describe_task(const TaskGraph& g, int rank, TaskId id) {
  return "rank " + std::to_string(rank) + ": task " + std::to_string(id) + " (" + g.display_name(g.task(id)) + ")";
}

std::optional<InjectedFailure> injected_failure_from_env() {
  const char* v = std::getenv("HCPSIM_RUNNER_FAIL");
  if (!v || !*v) return std::nullopt;
  const char* colon = std::strchr(v, ':');
  if (!colon || colon == v || !colon[1])
    throw std::invalid_argument(std::string("HCPSIM_RUNNER_FAIL: '") + v +
                                "' is not RANK:TASK (a rank and a task id or display name, e.g. 2:L0.fwd.s1.attn)");
  InjectedFailure f;
  try {
    std::size_t used = 0;
    f.rank = std::stoi(std::string(v, colon), &used);
    if (used != static_cast<std::size_t>(colon - v)) throw std::invalid_argument("rank");
  } catch (const std::exception&) {
    throw std::invalid_argument(std::string("HCPSIM_RUNNER_FAIL: '") + v + "': the rank before ':' is not a number");
  }
  f.task = colon + 1;
  constexpr std::string_view kHang = ":hang";
  if (f.task.size() > kHang.size() && f.task.compare(f.task.size() - kHang.size(), kHang.size(), kHang) == 0) {
    f.task.resize(f.task.size() - kHang.size());
    f.hang = true;
  }
  return f;
}

RankTimes run_rank_schedule(const TaskGraph& g, int rank, RankComm& comm, RankDevice& device,
                            const RankRunOptions& o) {
  const std::vector<TaskId> mine = rank_issue_order(g, rank);
  const auto fail = injected_failure_from_env();
  auto injected_here = [&](TaskId id) {
    if (!fail || fail->rank != rank) return false;
    return fail->task == std::to_string(id) || fail->task == g.display_name(g.task(id));
  };
  if (fail) {   // a hook that names nothing would test nothing: refuse it
    if (fail->rank < 0 || fail->rank >= g.world_size)
      throw std::invalid_argument("HCPSIM_RUNNER_FAIL: rank " + std::to_string(fail->rank) + " is not in [0, " +
                                  std::to_string(g.world_size) + ")");
    if (fail->rank == rank && std::none_of(mine.begin(), mine.end(), injected_here))
      throw std::invalid_argument("HCPSIM_RUNNER_FAIL: rank " + std::to_string(rank) + " has no task '" + fail->task +
                                  "' (a task id or display name such as " +
                                  (mine.empty() ? std::string("L0.fwd.s1.attn") : g.display_name(g.task(mine.back()))) +
                                  "; `hcpsim graph FILE --rank " + std::to_string(rank) + "` lists them)");
  }
  RankTimes times;
  times.start_s.assign(g.size(), 0);
  times.end_s.assign(g.size(), 0);
  for (int pass = 0; pass <= o.warmup; ++pass) {
    comm.barrier();
    device.begin_pass();
    const auto deadline = deadline_after(o.timeout_s);
    // Waits (making progress) until `done` holds; on a communicator error or the deadline, throws
    // naming the task that was waited for.
    auto wait_until = [&](TaskId id, const char* state, auto done) {
      while (!done()) {
        comm.check_errors(describe_task(g, rank, id));
        if (Clock::now() > deadline)
          throw std::runtime_error(describe_task(g, rank, id) + " " + state + " within " + fmt_seconds(o.timeout_s) +
                                   " s (a peer that never arrived, or a failed rank)");
        std::this_thread::yield();
      }
    };
    for (TaskId id : mine) {
      const Task& t = g.task(id);
      const std::string what = describe_task(g, rank, id);
      for (TaskId d : g.deps(id)) {
        const Task& dt = g.task(d);
        if (dt.rank == rank && dt.stream != t.stream) device.wait_for(id, d);
      }
      if (injected_here(id)) {   // fail where the task would run: after its inputs have arrived
        for (TaskId d : g.deps(id))
          if (g.task(d).rank == rank) wait_until(d, "did not finish", [&] { return device.finished(d); });
        if (fail->hang) {   // stop issuing and stay silent until the job is ended from outside
          std::this_thread::sleep_for(std::chrono::duration<double>(o.timeout_s + 60));
          throw std::runtime_error(what + ": hung on purpose (HCPSIM_RUNNER_FAIL) and was never ended");
        }
        throw std::runtime_error(what + ": failed on purpose (HCPSIM_RUNNER_FAIL)");
      }
      if (is_communication(t.kind)) {
        if (t.comm == kNone) throw std::runtime_error(what + ": communication task without a CommOp");
        device.communicate(id, comm, what);
      } else {
        device.compute(id);
      }
    }
    for (TaskId id : mine) wait_until(id, "did not finish", [&] { return device.finished(id); });
    if (pass == o.warmup)
      for (TaskId id : mine) {
        const auto [a, b] = device.times_s(id);
        times.start_s[id] = a;
        times.end_s[id] = b;
      }
  }
  return times;
}

Trace gather_trace(const TaskGraph& g, int rank, RankComm& comm, const RankTimes& times, const char* backend,
                   int gpus_per_node) {
  std::vector<double> rows;
  for (TaskId id : rank_issue_order(g, rank)) {
    rows.push_back(static_cast<double>(id));
    rows.push_back(times.start_s[id]);
    rows.push_back(times.end_s[id]);
  }
  std::vector<char> bytes(rows.size() * sizeof(double));
  if (!rows.empty()) std::memcpy(bytes.data(), rows.data(), bytes.size());
  const auto all = comm.gather_to_root(bytes);
  Trace tr;
  if (rank != 0) return tr;
  tr.scenario = g.scenario_name;
  tr.backend = backend;
  tr.world_size = g.world_size;
  tr.gpus_per_node = gpus_per_node;
  for (const auto& part : all) {
    std::vector<double> r(part.size() / sizeof(double));
    if (!r.empty()) std::memcpy(r.data(), part.data(), r.size() * sizeof(double));
    for (std::size_t i = 0; i + 2 < r.size(); i += 3) {
      const auto id = static_cast<TaskId>(r[i]);
      if (id >= g.size()) throw std::runtime_error("gather_trace: task id " + std::to_string(id) + " out of range");
      tr.events.push_back(make_event(g, g.task(id), r[i + 1], r[i + 2]));
    }
  }
  return tr;
}

}  // namespace hcpsim::kernels
