// The communication payloads of the reference executor: send/recv (one peer, or several routes
// per task), all-to-all, all-gather and reduce-scatter, moving whole tensors between rank buffers.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/reference/payload_ops.h"

namespace hcpsim::reference {
namespace {

[[noreturn]] void fail(const TaskGraph& g, TaskId t, const std::string& m) { payload_error(g, t, m); }

// One route of a routed send/recv task: in[in0, in0+n_send) go to dst, out[out0, out0+n_recv) come from src.
struct Route {
  int dst, src;
  std::size_t in0, n_send, out0, n_recv;
};

std::vector<Route> routes_of(const TaskGraph& g, TaskId t, const TaskPayload& p) {
  if (p.args.empty() || p.args.size() % 4 != 0)
    fail(g, t, "a routed send/recv needs 4 arguments per route (dst, src, tensors sent, tensors received), got " +
                   std::to_string(p.args.size()));
  std::vector<Route> out;
  std::size_t in0 = 0, out0 = 0;
  for (std::size_t i = 0; i < p.args.size(); i += 4) {
    const Route r{static_cast<int>(p.args[i]), static_cast<int>(p.args[i + 1]), in0,
                  static_cast<std::size_t>(p.args[i + 2]), out0, static_cast<std::size_t>(p.args[i + 3])};
    in0 += r.n_send;
    out0 += r.n_recv;
    out.push_back(r);
  }
  if (in0 != p.in.size() || out0 != p.out.size()) fail(g, t, "routes do not cover the send and receive lists");
  return out;
}

// Send/recv with several peers per task (batched isend/irecv): every route that sends is matched
// with the one route of its destination that receives from this rank.
template <typename T>
void run_routed_send_recv(const TaskGraph& g, const CommOp& op, BufferAccess<T>& buf) {
  const std::size_t n = op.tasks.size();
  std::vector<std::vector<Route>> routes(n);
  for (std::size_t m = 0; m < n; ++m) routes[m] = routes_of(g, op.tasks[m], g.payloads().at(g.payload_of(op.tasks[m])));
  std::size_t sends = 0, receives = 0;
  for (std::size_t m = 0; m < n; ++m)
    for (const Route& r : routes[m]) receives += r.n_recv > 0 ? 1 : 0;
  for (std::size_t m = 0; m < n; ++m) {
    const TaskPayload& ps = g.payloads().at(g.payload_of(op.tasks[m]));
    for (const Route& r : routes[m]) {
      if (r.n_send == 0) continue;
      const Route* match = nullptr;
      std::size_t d = n;
      for (std::size_t j = 0; j < n; ++j) {
        if (op.ranks[j] != r.dst) continue;
        d = j;
        for (const Route& q : routes[j])
          if (q.src == op.ranks[m] && q.n_recv > 0) {
            if (match) fail(g, op.tasks[j], "receives twice from rank " + std::to_string(op.ranks[m]) + " in one call");
            match = &q;
          }
      }
      if (!match) fail(g, op.tasks[m], "sends to rank " + std::to_string(r.dst) + " which does not receive from it");
      if (match->n_recv != r.n_send) fail(g, op.tasks[m], "send and receive lists differ in length");
      const TaskPayload& pd = g.payloads().at(g.payload_of(op.tasks[d]));
      for (std::size_t k = 0; k < r.n_send; ++k)
        buf.put(r.dst, pd.out[match->out0 + k], Tensor<T>(buf.get(op.ranks[m], ps.in[r.in0 + k], op.tasks[m])), op.tasks[d]);
      ++sends;
    }
  }
  if (sends != receives) fail(g, op.tasks[0], "a rank receives from a peer that sends it nothing");
}

}  // namespace

template <typename T>
void run_comm(const TaskGraph& g, const CommOp& op, BufferAccess<T>& buf) {
  const std::size_t n = op.tasks.size();
  auto pay = [&](std::size_t m) -> const TaskPayload& { return g.payloads().at(g.payload_of(op.tasks[m])); };
  auto index_of = [&](int rank) -> std::size_t {
    for (std::size_t m = 0; m < n; ++m)
      if (op.ranks[m] == rank) return m;
    fail(g, op.tasks[0], "peer rank " + std::to_string(rank) + " is not a member of the call");
  };
  switch (op.kind) {
    case TaskKind::SendRecv:
      if (std::any_of(op.tasks.begin(), op.tasks.end(), [&](TaskId t) { return g.payloads().at(g.payload_of(t)).args.size() != 2; })) {
        run_routed_send_recv(g, op, buf);
        return;
      }
      for (std::size_t m = 0; m < n; ++m) {
        const TaskPayload& ps = pay(m);
        const int src = op.ranks[m], dst = static_cast<int>(ps.args.at(0));
        const std::size_t d = index_of(dst);
        const TaskPayload& pd = pay(d);
        if (pd.args.at(1) != src)
          fail(g, op.tasks[m], "sends to rank " + std::to_string(dst) + " which expects data from rank " +
                                   std::to_string(pd.args.at(1)));
        if (pd.out.size() != ps.in.size()) fail(g, op.tasks[m], "send and receive lists differ in length");
        for (std::size_t k = 0; k < ps.in.size(); ++k)
          buf.put(dst, pd.out[k], Tensor<T>(buf.get(src, ps.in[k], op.tasks[m])), op.tasks[d]);
      }
      return;
    case TaskKind::AllToAll: {
      std::vector<const Tensor<T>*> send(n);
      for (std::size_t m = 0; m < n; ++m) send[m] = &buf.get(op.ranks[m], pay(m).in.at(0), op.tasks[m]);
      for (std::size_t j = 0; j < n; ++j) {
        Tensor<T> recv(send[j]->B, send[j]->L, send[j]->H, send[j]->D);
        const std::size_t slot = recv.v.size() / n;
        for (std::size_t m = 0; m < n; ++m) {
          if (send[m]->v.size() != recv.v.size()) fail(g, op.tasks[m], "all_to_all with different sizes");
          std::copy_n(send[m]->v.data() + j * slot, slot, recv.v.data() + m * slot);
        }
        buf.put(op.ranks[j], pay(j).out.at(0), std::move(recv), op.tasks[j]);
      }
      return;
    }
    case TaskKind::AllGather: {
      const Tensor<T>& x0 = buf.get(op.ranks[0], pay(0).in.at(0), op.tasks[0]);
      Tensor<T> all(static_cast<std::int64_t>(n) * x0.B, x0.L, x0.H, x0.D);
      for (std::size_t m = 0; m < n; ++m) {
        const Tensor<T>& x = buf.get(op.ranks[m], pay(m).in.at(0), op.tasks[m]);
        if (x.v.size() != x0.v.size()) fail(g, op.tasks[m], "all_gather with different sizes");
        std::copy(x.v.begin(), x.v.end(), all.v.begin() + static_cast<std::ptrdiff_t>(m * x.v.size()));
      }
      for (std::size_t m = 0; m < n; ++m) buf.put(op.ranks[m], pay(m).out.at(0), Tensor<T>(all), op.tasks[m]);
      return;
    }
    case TaskKind::ReduceScatter: {
      const Tensor<T>& x0 = buf.get(op.ranks[0], pay(0).in.at(0), op.tasks[0]);
      const std::int64_t B = x0.B / static_cast<std::int64_t>(n);
      for (std::size_t j = 0; j < n; ++j) {
        Tensor<T> o(B, x0.L, x0.H, x0.D);
        for (std::size_t m = 0; m < n; ++m) {
          const Tensor<T>& x = buf.get(op.ranks[m], pay(m).in.at(0), op.tasks[m]);
          if (x.v.size() != x0.v.size()) fail(g, op.tasks[m], "reduce_scatter with different sizes");
          for (std::size_t i = 0; i < o.v.size(); ++i) o.v[i] += x.v[j * o.v.size() + i];
        }
        buf.put(op.ranks[j], pay(j).out.at(0), std::move(o), op.tasks[j]);
      }
      return;
    }
    default: fail(g, op.tasks[0], "unsupported communication kind for the reference executor");
  }
}

template void run_comm<double>(const TaskGraph&, const CommOp&, BufferAccess<double>&);
template void run_comm<float>(const TaskGraph&, const CommOp&, BufferAccess<float>&);

}  // namespace hcpsim::reference
