#include "engine/reference/payload_ops.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "engine/reference/attention_kernels.h"
#include "engine/reference/dsa_indexer.h"

namespace hcpsim::reference {

std::string describe_key(std::uint64_t key) {
  static const char* names[] = {"Q", "K", "V", "DOut", "Out", "DQ", "DK", "DV", "LevelQ", "LevelK", "LevelV",
                                "LevelDOut", "LevelOut", "LevelDQ", "LevelDK", "LevelDV", "LevelDKV", "Send",
                                "Recv", "KV", "StepOut", "StepLse", "Lse", "BwdKV", "BwdDq", "BwdDkv", "Dq",
                                "Dkv", "RecvDkv", "Gathered", "FullKV", "FullDkv",
                                "IndexQ", "IndexK", "IndexW", "TopK"};
  const auto n = static_cast<std::size_t>(key >> 48);
  const std::string name = n < sizeof(names) / sizeof(names[0]) ? names[n] : "?";
  return name + ".L" + std::to_string((key >> 32) & 0xffff) + ".v" + std::to_string(key & 0xffffffffu);
}

namespace {

[[noreturn]] void fail(const TaskGraph& g, TaskId t, const std::string& m) {
  throw std::runtime_error("reference: rank " + std::to_string(g.task(t).rank) + " task " +
                           g.display_name(g.task(t)) + ": " + m);
}

template <typename T>
Tensor<T> columns(const Tensor<T>& in, std::int64_t col0, std::int64_t ncol) {
  if (ncol < 0) ncol = in.D - col0;
  Tensor<T> out(in.B, in.L, in.H, ncol);
  for (std::int64_t b = 0; b < in.B; ++b)
    for (std::int64_t l = 0; l < in.L; ++l)
      for (std::int64_t h = 0; h < in.H; ++h) std::copy_n(in.row(b, l, h) + col0, ncol, out.row(b, l, h));
  return out;
}

// [x | y] along the head dimension (same B, L, H).
template <typename T>
Tensor<T> concat_columns(const Tensor<T>& x, const Tensor<T>& y) {
  Tensor<T> o(x.B, x.L, x.H, x.D + y.D);
  for (std::int64_t b = 0; b < x.B; ++b)
    for (std::int64_t l = 0; l < x.L; ++l)
      for (std::int64_t h = 0; h < x.H; ++h) {
        std::copy_n(x.row(b, l, h), x.D, o.row(b, l, h));
        std::copy_n(y.row(b, l, h), y.D, o.row(b, l, h) + x.D);
      }
  return o;
}

// Token index inside [early A chunks | late A chunks reversed] of member m's local token l (s local).
std::int64_t natural_token(std::int64_t A, std::int64_t m, std::int64_t l, std::int64_t s) {
  const std::int64_t cs = s / 2;
  return l < cs ? m * cs + l : A * cs + (A - 1 - m) * cs + (l - cs);
}

template <typename T>
void compute_op(const TaskGraph& g, TaskId t, const TaskPayload& p, BufferAccess<T>& buf, TileKernels* tiles) {
  const int r = g.task(t).rank;
  auto in = [&](std::size_t i) -> const Tensor<T>& { return buf.get(r, p.in.at(i), t); };
  auto put = [&](std::size_t i, Tensor<T>&& v) { buf.put(r, p.out.at(i), std::move(v), t); };
  const auto& a = p.args;
  switch (p.op) {
    case PayloadOp::Concat: {
      const Tensor<T>& x = in(0);
      const Tensor<T>& y = in(1);
      if (x.B != y.B || x.L != y.L || x.H != y.H) fail(g, t, "concat of different shapes");
      put(0, concat_columns(x, y));
      return;
    }
    case PayloadOp::Add: {
      if (!a.empty()) {   // sum (or copy) then split columns at a[0]
        Tensor<T> sum = in(0);
        if (p.in.size() == 2) {
          const Tensor<T>& y = in(1);
          if (!sum.same_shape(y)) fail(g, t, "add of different shapes");
          for (std::size_t i = 0; i < sum.v.size(); ++i) sum.v[i] += y.v[i];
        }
        put(0, columns(sum, 0, a[0]));
        put(1, columns(sum, a[0], -1));
        return;
      }
      if (p.in.size() == p.out.size()) {
        for (std::size_t i = 0; i < p.in.size(); ++i) put(i, Tensor<T>(in(i)));
        return;
      }
      if (p.in.size() != 2 * p.out.size()) fail(g, t, "add needs 1 or 2 inputs per output");
      for (std::size_t k = 0; k < p.out.size(); ++k) {
        Tensor<T> sum = in(2 * k);
        const Tensor<T>& y = in(2 * k + 1);
        if (!sum.same_shape(y)) fail(g, t, "add of different shapes");
        for (std::size_t i = 0; i < sum.v.size(); ++i) sum.v[i] += y.v[i];
        put(k, std::move(sum));
      }
      return;
    }
    case PayloadOp::HeadSplit: {
      const std::int64_t A = a.at(0);
      const Tensor<T> x = columns(in(0), a.at(1), a.at(2));
      if (x.H % A != 0) fail(g, t, "heads not divisible by the a2a group size");
      const std::int64_t Hs = x.H / A;
      Tensor<T> o(A * x.B, x.L, Hs, x.D);
      for (std::int64_t j = 0; j < A; ++j)
        for (std::int64_t b = 0; b < x.B; ++b)
          for (std::int64_t l = 0; l < x.L; ++l)
            for (std::int64_t h = 0; h < Hs; ++h) std::copy_n(x.row(b, l, j * Hs + h), x.D, o.row(j * x.B + b, l, h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::ChunksToNatural: {
      const std::int64_t A = a.at(0);
      const Tensor<T>& x = in(0);
      const std::int64_t B = x.B / A, s = x.L;
      Tensor<T> o(B, A * s, x.H, x.D);
      for (std::int64_t m = 0; m < A; ++m)
        for (std::int64_t b = 0; b < B; ++b)
          for (std::int64_t l = 0; l < s; ++l)
            for (std::int64_t h = 0; h < x.H; ++h)
              std::copy_n(x.row(m * B + b, l, h), x.D, o.row(b, natural_token(A, m, l, s), h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::NaturalToChunks: {
      const std::int64_t A = a.at(0);
      const Tensor<T> x = columns(in(0), a.at(1), a.at(2));
      const std::int64_t s = x.L / A;
      Tensor<T> o(A * x.B, s, x.H, x.D);
      for (std::int64_t m = 0; m < A; ++m)
        for (std::int64_t b = 0; b < x.B; ++b)
          for (std::int64_t l = 0; l < s; ++l)
            for (std::int64_t h = 0; h < x.H; ++h)
              std::copy_n(x.row(b, natural_token(A, m, l, s), h), x.D, o.row(m * x.B + b, l, h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::SlotsToSequence: {
      const std::int64_t A = a.at(0);
      const Tensor<T>& x = in(0);
      if (A < 1 || x.B % A != 0) fail(g, t, "slots do not divide the batch dimension");
      const std::int64_t B = x.B / A, s = x.L;
      Tensor<T> o(B, A * s, x.H, x.D);
      for (std::int64_t m = 0; m < A; ++m)
        for (std::int64_t b = 0; b < B; ++b)
          for (std::int64_t l = 0; l < s; ++l)
            for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(m * B + b, l, h), x.D, o.row(b, m * s + l, h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::SequenceToSlots: {
      const std::int64_t A = a.at(0);
      const Tensor<T> x = columns(in(0), a.at(1), a.at(2));
      if (A < 1 || x.L % A != 0) fail(g, t, "slots do not divide the tokens");
      const std::int64_t s = x.L / A;
      Tensor<T> o(A * x.B, s, x.H, x.D);
      for (std::int64_t m = 0; m < A; ++m)
        for (std::int64_t b = 0; b < x.B; ++b)
          for (std::int64_t l = 0; l < s; ++l)
            for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(b, m * s + l, h), x.D, o.row(m * x.B + b, l, h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::TokenSlice: {
      const Tensor<T>& x = in(0);
      const std::int64_t off = a.at(0), len = a.at(1);
      if (off < 0 || len < 0 || off + len > x.L) fail(g, t, "token slice out of range");
      Tensor<T> o(x.B, len, x.H, x.D);
      for (std::int64_t b = 0; b < x.B; ++b)
        for (std::int64_t l = 0; l < len; ++l)
          for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(b, off + l, h), x.D, o.row(b, l, h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::TokenConcat: {
      const Tensor<T>& x = in(0);
      const Tensor<T>& y = in(1);
      if (x.B != y.B || x.H != y.H || x.D != y.D) fail(g, t, "token concat of different shapes");
      Tensor<T> o(x.B, x.L + y.L, x.H, x.D);
      for (std::int64_t b = 0; b < x.B; ++b)
        for (std::int64_t h = 0; h < x.H; ++h) {
          for (std::int64_t l = 0; l < x.L; ++l) std::copy_n(x.row(b, l, h), x.D, o.row(b, l, h));
          for (std::int64_t l = 0; l < y.L; ++l) std::copy_n(y.row(b, l, h), y.D, o.row(b, x.L + l, h));
        }
      put(0, std::move(o));
      return;
    }
    case PayloadOp::IndexerTopK: {
      put(0, indexer_keep(in(0), in(1), in(2), a.at(0), a.at(1), a.at(2) != 0));
      return;
    }
    case PayloadOp::HeadMerge: {
      const std::int64_t A = a.at(0);
      const Tensor<T>& x = in(0);
      const std::int64_t B = x.B / A;
      Tensor<T> o(B, x.L, A * x.H, x.D);
      for (std::int64_t j = 0; j < A; ++j)
        for (std::int64_t b = 0; b < B; ++b)
          for (std::int64_t l = 0; l < x.L; ++l)
            for (std::int64_t h = 0; h < x.H; ++h) std::copy_n(x.row(j * B + b, l, h), x.D, o.row(b, l, j * x.H + h));
      put(0, std::move(o));
      return;
    }
    case PayloadOp::AttnFwd:
    case PayloadOp::AttnBwd: {
      const Tile tile{a.at(0), a.at(1), a.at(2), a.at(3), a.at(4) != 0};
      const bool fwd = p.op == PayloadOp::AttnFwd;
      const bool masked = fwd ? p.in.size() == 4 : p.in.size() == 7;
      const bool separate = masked || (fwd ? p.in.size() == 3 : p.in.size() == 6);
      const Tensor<T>* keep = masked ? &in(p.in.size() - 1) : nullptr;
      const Tensor<T>& q = in(0);
      const Tensor<T>& k = in(1);
      const Tensor<T>& v = separate ? in(2) : k;
      const std::int64_t v_col0 = separate ? 0 : q.D;
      const std::int64_t d_v = separate ? v.D : k.D - q.D;
      if (p.op == PayloadOp::AttnFwd) {
        Tensor<T> o, lse;
        if constexpr (std::is_same_v<T, double>) {
          if (tiles) tiles->forward(q, k, v, v_col0, d_v, tile, o, lse, keep);
          else attention_forward(q, k, v, v_col0, d_v, tile, o, lse, keep);
        } else {
          attention_forward(q, k, v, v_col0, d_v, tile, o, lse, keep);
        }
        put(0, std::move(o));
        put(1, std::move(lse));
        return;
      }
      const std::size_t base = separate ? 3 : 2;
      Tensor<T> dq, dk, dv;
      if constexpr (std::is_same_v<T, double>) {
        if (tiles) tiles->backward(q, k, v, v_col0, d_v, in(base), in(base + 1), in(base + 2), tile, dq, dk, dv, keep);
        else attention_backward(q, k, v, v_col0, d_v, in(base), in(base + 1), in(base + 2), tile, dq, dk, dv, keep);
      } else {
        attention_backward(q, k, v, v_col0, d_v, in(base), in(base + 1), in(base + 2), tile, dq, dk, dv, keep);
      }
      put(0, std::move(dq));
      if (separate) {
        put(1, std::move(dk));
        put(2, std::move(dv));
      } else {
        put(1, concat_columns(dk, dv));
      }
      return;
    }
    case PayloadOp::LseMerge: {
      Tensor<T> o = in(0);
      if (p.in.size() == 2) {
        const Tensor<T>& y = in(1);
        if (!o.same_shape(y)) fail(g, t, "lse merge of different shapes");
        for (std::size_t i = 0; i < o.v.size(); ++i) o.v[i] = log_add_exp(o.v[i], y.v[i]);
      }
      put(0, std::move(o));
      return;
    }
    case PayloadOp::OutCorrection: {
      const Tensor<T>& lse = in(0);
      const Tensor<T>& o0 = in(1);
      Tensor<T> o(o0.B, o0.L, o0.H, o0.D);
      for (std::size_t k = 1; k + 1 < p.in.size(); k += 2) {
        const Tensor<T>& ok = in(k);
        const Tensor<T>& lk = in(k + 1);
        for (std::int64_t b = 0; b < o.B; ++b)
          for (std::int64_t l = 0; l < o.L; ++l)
            for (std::int64_t h = 0; h < o.H; ++h) {
              const T w = std::exp(lk.at(b, l, h, 0) - lse.at(b, l, h, 0));
              if (!(w > 0)) continue;
              const T* src = ok.row(b, l, h);
              T* dst = o.row(b, l, h);
              for (std::int64_t d = 0; d < o.D; ++d) dst[d] += w * src[d];
            }
      }
      put(0, std::move(o));
      return;
    }
    default: fail(g, t, "payload op is not a compute op");
  }
}

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
void run_compute(const TaskGraph& g, TaskId t, BufferAccess<T>& buf, TileKernels* tiles) {
  if constexpr (!std::is_same_v<T, double>)
    if (tiles) throw std::invalid_argument("reference: other attention tile kernels run in double precision only");
  compute_op(g, t, g.payloads().at(g.payload_of(t)), buf, tiles);
}

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

template void run_compute<double>(const TaskGraph&, TaskId, BufferAccess<double>&, TileKernels*);
template void run_compute<float>(const TaskGraph&, TaskId, BufferAccess<float>&, TileKernels*);
template void run_comm<double>(const TaskGraph&, const CommOp&, BufferAccess<double>&);
template void run_comm<float>(const TaskGraph&, const CommOp&, BufferAccess<float>&);

}  // namespace hcpsim::reference
