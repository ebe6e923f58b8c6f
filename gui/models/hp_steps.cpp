#include "gui/models/hp_steps.h"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <tuple>

#include "engine/scenario/scenario.h"
#include "engine/schedule/build.h"
#include "engine/schedule/hp_styles.h"

namespace hcpsim::gui {
namespace {

// Bytes one member sends to one other member of a collective of n (CommOp::bytes_per_rank's meaning).
double pair_bytes(const CommOp& c) {
  const double n = static_cast<double>(c.ranks.size());
  switch (c.kind) {
    case TaskKind::AllToAll:
    case TaskKind::AllReduce: return c.bytes_per_rank / n;
    default: return c.bytes_per_rank;   // all_gather: the local shard; reduce_scatter: the output shard
  }
}

std::vector<char> reach(const TaskGraph& g, TaskId from, bool forward) {
  std::vector<char> seen(g.size(), 0);
  std::deque<TaskId> todo{from};
  while (!todo.empty()) {
    const TaskId t = todo.front();
    todo.pop_front();
    for (TaskId n : forward ? g.successors(t) : g.deps(t))
      if (!seen[n]) {
        seen[n] = 1;
        todo.push_back(n);
      }
  }
  return seen;
}

}  // namespace

HpStepModel::HpStepModel(const Scenario& s) : layout_(RankLayout::from_scenario(s)) {
  if (!s.hyperparallel_cp())
    throw std::invalid_argument("HyperParallel step view: the scenario has no hyperparallel: section");
  if (s.cp() < 2)
    throw std::invalid_argument("HyperParallel step view: model.context_parallel_size is " + std::to_string(s.cp()) +
                                "; there is no CP group to show (needs 2 or more)");
  GraphOptions o;
  o.forward = true;
  o.backward = true;
  o.layers = 1;
  o.hp_projections = s.hyperparallel.async_effective();
  graph_ = build_task_graph(s, layout_, o);
  cp_ranks_ = layout_.groups(GroupKind::CP).at(0);
  title_ = schedule::hp_title(s);
  collect_steps();
  collect_overlaps();
}

int HpStepModel::co_index(int cp_index) const { return cp_index / ulysses(); }
int HpStepModel::ds_index(int cp_index) const { return cp_index % ulysses(); }

int HpStepModel::forward_steps() const {
  return static_cast<int>(std::count_if(steps_.begin(), steps_.end(), [](const HpStep& s) { return s.pass == Pass::Forward; }));
}

const AttentionShape* HpStepModel::attention(int step, int cp_index) const {
  const HpStep& s = this->step(step);
  const TaskId id = s.tasks.at(static_cast<std::size_t>(cp_index));
  if (id == kNone) return nullptr;
  const Task& t = graph_.task(id);
  return t.attention == kNone ? nullptr : &graph_.attention_of(t);
}

void HpStepModel::collect_steps() {
  std::map<int, int> cp_index;   // global rank -> CP index in the shown group
  for (std::size_t i = 0; i < cp_ranks_.size(); ++i) cp_index[cp_ranks_[i]] = static_cast<int>(i);
  // The k-th task with the same (pass, stream, label) on each member forms one step.
  std::map<std::tuple<int, int, int, int>, int> ordinal;          // (pass, stream, label, rank) -> count
  std::map<std::tuple<int, int, int, int>, std::size_t> step_of;   // (pass, stream, label, ordinal) -> step
  for (TaskId id = 0; id < graph_.size(); ++id) {
    const Task& t = graph_.task(id);
    const auto ci = cp_index.find(t.rank);
    if (ci == cp_index.end() || t.layer != 0) continue;
    const int p = static_cast<int>(t.pass), st = static_cast<int>(t.stream);
    const int k = ordinal[{p, st, t.label, t.rank}]++;
    const auto [it, created] = step_of.try_emplace({p, st, t.label, k}, steps_.size());
    if (created) {
      HpStep s;
      s.label = std::string(graph_.label(t));
      s.kind = t.kind;
      s.stream = t.stream;
      s.pass = t.pass;
      s.communication = t.comm != kNone;
      s.tasks.assign(cp_ranks_.size(), kNone);
      steps_.push_back(std::move(s));
    }
    HpStep& s = steps_[it->second];
    s.tasks[static_cast<std::size_t>(ci->second)] = id;
    s.flops = std::max(s.flops, t.flops);
  }
  // Communication: the CommOps of each step's tasks, restricted to the shown CP group.
  for (HpStep& s : steps_) {
    if (!s.communication) continue;
    std::vector<std::uint32_t> ops;
    for (TaskId id : s.tasks)
      if (id != kNone && graph_.task(id).comm != kNone) ops.push_back(graph_.task(id).comm);
    std::sort(ops.begin(), ops.end());
    ops.erase(std::unique(ops.begin(), ops.end()), ops.end());
    for (std::uint32_t oi : ops) {
      const CommOp& c = graph_.comms()[oi];
      s.group = c.group;
      std::vector<int> members;
      for (int r : c.ranks)
        if (const auto m = cp_index.find(r); m != cp_index.end()) members.push_back(m->second);
      if (c.kind == TaskKind::SendRecv) {
        for (const Transfer& x : c.transfers) {
          const auto a = cp_index.find(x.src), b = cp_index.find(x.dst);
          if (a != cp_index.end() && b != cp_index.end() && x.src != x.dst)
            s.messages.push_back({a->second, b->second, x.bytes});
        }
        if (s.bytes_per_rank == 0 && !c.transfers.empty()) s.bytes_per_rank = c.transfers.front().bytes;
      } else {
        for (int a : members)
          for (int b : members)
            if (a != b) s.messages.push_back({a, b, pair_bytes(c)});
        if (s.bytes_per_rank == 0) s.bytes_per_rank = graph_.task(c.tasks.front()).bytes;
      }
      s.groups.push_back(std::move(members));
    }
  }
}

void HpStepModel::collect_overlaps() {
  for (HpStep& s : steps_) {
    if (!s.communication) continue;
    const auto first = std::find_if(s.tasks.begin(), s.tasks.end(), [](TaskId t) { return t != kNone; });
    if (first == s.tasks.end()) continue;
    const std::size_t member = static_cast<std::size_t>(first - s.tasks.begin());
    const std::vector<char> after = reach(graph_, *first, true), before = reach(graph_, *first, false);
    for (const HpStep& o : steps_) {
      if (o.communication || o.stream != Stream::Main) continue;
      const TaskId t = o.tasks[member];
      if (t != kNone && !after[t] && !before[t]) s.overlaps.push_back(o.label);
    }
  }
}

}  // namespace hcpsim::gui
