// The teaching text form of a task graph: per rank, layer and pass, each task with its ring step,
// the causal section an attention kernel computes and the K/V chunks it reads, what a transfer
// sends to whom, bytes and FLOPs.
#include "engine/schedule/graph_text.h"

#include <cstdio>
#include <ostream>

#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim {

std::string ring_chunks(int j, int A, int cp) {
  std::string s;
  for (int a = 0; a < A; ++a) s += (a ? " C" : "C") + std::to_string(j * A + a);
  s += " |";
  for (int a = A - 1; a >= 0; --a) s += " C" + std::to_string(2 * cp - 1 - (j * A + a));
  return s;
}

namespace {

std::string mib(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g MiB", bytes / 1048576.0);
  return buf;
}

std::string sci(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

std::string section_text(MaskSection m) {
  switch (m) {
    case MaskSection::Diagonal: return "diagonal: all Q x own KV, causal";
    case MaskSection::Lower: return "lower: all Q x first KV half, no mask";
    case MaskSection::Upper: return "upper: second Q half x all KV, no mask";
    case MaskSection::Full: return "full: all Q x all KV, no mask";
    case MaskSection::Causal: return "causal over the whole sequence";
    case MaskSection::BottomRight: return "Q chunk x KV prefix, bottom-right causal";
  }
  return "";
}

}  // namespace

void write_graph_text(const TaskGraph& g, const Scenario& s, const GraphFilter& f, std::ostream& os) {
  const int cp = s.cp();
  int last_rank = -1, last_layer = -1;
  int last_pass = -1;
  const std::vector<const Task*> sorted = accepted_by_rank(g, f);
  for (const Task* tp : sorted) {
    const Task& t = *tp;
    const schedule::ScheduleDescriptor& sched = schedule::schedule_of_layer(s, t.layer);
    if (t.rank != last_rank || t.layer != last_layer || static_cast<int>(t.pass) != last_pass) {
      // HyperParallel's mode replaces cp_comm_type: "hyperparallel hybrid u=8".
      const std::string kind = s.hyperparallel_cp() ? std::string("hyperparallel ") + to_string(s.hyperparallel.mode(s.cp())) +
                                                           " u=" + std::to_string(s.hyperparallel.ulysses(s.cp()))
                                                     : std::string(sched.name);
      os << "\nrank " << t.rank << "  layer " << t.layer << " (" << kind << ")  " << to_string(t.pass) << '\n';
      last_rank = t.rank;
      last_layer = t.layer;
      last_pass = static_cast<int>(t.pass);
    }
    os << "  ";
    if (t.step >= 0) os << "step " << t.step << "  ";
    os << g.label(t) << "  [" << to_string(t.stream) << "]";
    if (t.attention != kNone) {
      const AttentionShape& a = g.attention_of(t);
      os << "  " << section_text(a.section) << "; q " << a.q_len << " x kv " << a.kv_len << ", heads " << a.heads
         << "/" << a.kv_heads;
      if (a.kv_source >= 0 && sched.ring)
        os << "; KV of ring rank " << a.kv_source << " = " << ring_chunks(a.kv_source, schedule::a2a_size(sched, s), cp);
      os << "; " << sci(t.flops) << " FLOP";
    } else if (t.comm != kNone) {
      const auto peers = task_peers(g, t);
      if (t.kind == TaskKind::SendRecv && peers.size() >= 2)
        os << "  send " << mib(t.bytes) << " to rank " << peers[0] << ", receive from rank " << peers[1];
      else {
        os << "  " << mib(t.bytes) << " sent, with ranks";
        for (int p : peers) os << ' ' << p;
      }
    } else {
      os << "  " << mib(t.bytes) << " HBM";
    }
    os << '\n';
  }
}

}  // namespace hcpsim
