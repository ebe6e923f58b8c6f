#include "kernels/call_plan.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "kernels/rank_schedule.h"

namespace hcpsim::kernels {

CallPlan build_call_plan(const TaskGraph& g) {
  CallPlan plan;
  plan.by_rank.resize(static_cast<std::size_t>(std::max(g.world_size, 0)));
  for (TaskId id : g.topological_order()) {
    const Task& t = g.task(id);
    if (!is_communication(t.kind) || t.comm == kNone) continue;
    if (t.rank < 0 || t.rank >= g.world_size) continue;
    const CommOp& op = g.comms()[t.comm];
    PlannedCall c;
    c.task = id;
    c.op = t.comm;
    c.kind = op.kind;
    c.group = op.group;
    c.group_index = op.group_index;
    if (op.kind == TaskKind::SendRecv)
      for (const Transfer& x : op.transfers) {
        if (x.src == t.rank && x.dst != t.rank) c.sends_to.push_back(x.dst);
        if (x.dst == t.rank && x.src != t.rank) c.receives_from.push_back(x.src);
      }
    plan.by_rank[static_cast<std::size_t>(t.rank)].push_back(std::move(c));
  }
  return plan;
}

std::vector<std::string> check_call_plan(const TaskGraph& g, const RankLayout& layout, const CallPlan& plan,
                                         std::size_t max_problems) {
  std::vector<std::string> problems;
  auto problem = [&](const std::string& m) {
    if (problems.size() < max_problems) problems.push_back(m);
  };
  auto call_name = [&](const PlannedCall& c) {
    return "call " + std::to_string(c.op) + " (" + to_string(c.kind) + ", task " + std::to_string(c.task) + " " +
           g.display_name(g.task(c.task)) + ")";
  };
  // Point to point: per ordered pair (src, dst), the sequence of calls on each side.
  std::map<std::pair<int, int>, std::vector<const PlannedCall*>> sends, recvs;
  // Collectives: per communicator (kind, group index), each member's sequence.
  std::map<std::pair<int, int>, std::map<int, std::vector<const PlannedCall*>>> colls;
  for (std::size_t r = 0; r < plan.by_rank.size(); ++r) {
    const int rank = static_cast<int>(r);
    for (const PlannedCall& c : plan.by_rank[r]) {
      if (c.kind == TaskKind::SendRecv) {
        for (int d : c.sends_to) sends[{rank, d}].push_back(&c);
        for (int s : c.receives_from) recvs[{s, rank}].push_back(&c);
        continue;
      }
      const auto& groups = layout.groups(c.group);
      if (c.group_index < 0 || c.group_index >= static_cast<int>(groups.size())) {
        problem("rank " + std::to_string(rank) + ": " + call_name(c) + " names " + to_string(c.group) + " group " +
                std::to_string(c.group_index) + ", which the layout does not have");
        continue;
      }
      const auto& members = groups[static_cast<std::size_t>(c.group_index)];
      const CommOp& op = g.comms().at(c.op);
      if (std::vector<int>(op.ranks.begin(), op.ranks.end()) != members)
        problem(call_name(c) + ": its members are not " + to_string(c.group) + " group " +
                std::to_string(c.group_index) + " in group order (a member's slot would not be its rank in the communicator)");
      if (std::find(members.begin(), members.end(), rank) == members.end())
        problem("rank " + std::to_string(rank) + ": " + call_name(c) + " on " + to_string(c.group) + " group " +
                std::to_string(c.group_index) + ", which does not contain this rank");
      colls[{static_cast<int>(c.group), c.group_index}][rank].push_back(&c);
    }
  }
  std::set<std::pair<int, int>> pairs;
  for (const auto& [k, v] : sends) pairs.insert(k);
  for (const auto& [k, v] : recvs) pairs.insert(k);
  for (const auto& key : pairs) {
    const auto& s = sends[key];
    const auto& r = recvs[key];
    const std::string who = "rank " + std::to_string(key.first) + " -> rank " + std::to_string(key.second);
    const std::size_t n = std::min(s.size(), r.size());
    for (std::size_t i = 0; i < n; ++i)
      if (s[i]->op != r[i]->op) {
        problem(who + ": send " + std::to_string(i + 1) + " is " + call_name(*s[i]) + " but receive " +
                std::to_string(i + 1) + " is " + call_name(*r[i]));
        break;
      }
    if (s.size() > r.size())
      problem(who + ": " + std::to_string(s.size() - r.size()) + " send(s) without a receive, first " +
              call_name(*s[r.size()]));
    if (r.size() > s.size())
      problem(who + ": " + std::to_string(r.size() - s.size()) + " receive(s) without a send, first " +
              call_name(*r[s.size()]));
  }
  for (const auto& [comm, by_member] : colls) {
    const GroupKind kind = static_cast<GroupKind>(comm.first);
    const auto& members = layout.groups(kind)[static_cast<std::size_t>(comm.second)];
    const std::string where = std::string(to_string(kind)) + " group " + std::to_string(comm.second);
    const int first = members.front();
    const auto none = std::vector<const PlannedCall*>{};
    const auto& ref = by_member.count(first) ? by_member.at(first) : none;
    for (int m : members) {
      const auto& mine = by_member.count(m) ? by_member.at(m) : none;
      const std::size_t n = std::min(ref.size(), mine.size());
      bool differs = false;
      for (std::size_t i = 0; i < n && !differs; ++i)
        if (mine[i]->op != ref[i]->op) {
          problem(where + ": collective " + std::to_string(i + 1) + " is " + call_name(*ref[i]) + " on rank " +
                  std::to_string(first) + " but " + call_name(*mine[i]) + " on rank " + std::to_string(m));
          differs = true;
        }
      if (!differs && mine.size() != ref.size())
        problem(where + ": rank " + std::to_string(first) + " makes " + std::to_string(ref.size()) +
                " collective calls, rank " + std::to_string(m) + " makes " + std::to_string(mine.size()));
    }
  }
  return problems;
}

}  // namespace hcpsim::kernels
