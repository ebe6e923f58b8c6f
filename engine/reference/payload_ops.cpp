#include "engine/reference/payload_ops.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "engine/reference/attention_kernels.h"
#include "engine/reference/dsa_indexer.h"
#include "engine/reference/tensor_reshape.h"

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

void payload_error(const TaskGraph& g, TaskId t, const std::string& message) {
  throw std::runtime_error("reference: rank " + std::to_string(g.task(t).rank) + " task " +
                           g.display_name(g.task(t)) + ": " + message);
}

namespace {

[[noreturn]] void fail(const TaskGraph& g, TaskId t, const std::string& m) { payload_error(g, t, m); }

// An attention kernel's payload: forward (out, lse) or backward (dq and dk, dv or one dkv), on the
// reference kernels or on `tiles` (double only). `in(i)` reads input i, `put(i, v)` writes output i.
template <typename T, typename In, typename Put>
void attention_op(const TaskPayload& p, In& in, Put& put, TileKernels* tiles) {
  const auto& a = p.args;
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
}

enum class Join { Columns, Tokens };

// x and y joined along columns (Concat) or tokens (TokenConcat); every other dimension must agree.
template <typename T>
Tensor<T> checked_concat(const TaskGraph& g, TaskId t, const Tensor<T>& x, const Tensor<T>& y, Join along) {
  const bool columns = along == Join::Columns;
  const bool other_dims_agree = x.B == y.B && x.H == y.H && (columns ? x.L == y.L : x.D == y.D);
  if (!other_dims_agree) fail(g, t, columns ? "concat of different shapes" : "token concat of different shapes");
  return columns ? concat_columns(x, y) : token_concat(x, y);
}

template <typename T>
void compute_op(const TaskGraph& g, TaskId t, const TaskPayload& p, BufferAccess<T>& buf, TileKernels* tiles) {
  const int r = g.task(t).rank;
  auto in = [&](std::size_t i) -> const Tensor<T>& { return buf.get(r, p.in.at(i), t); };
  auto put = [&](std::size_t i, Tensor<T>&& v) { buf.put(r, p.out.at(i), std::move(v), t); };
  const auto& a = p.args;
  switch (p.op) {
    case PayloadOp::Concat: put(0, checked_concat(g, t, in(0), in(1), Join::Columns)); return;
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
      const Tensor<T> x = columns(in(0), a.at(1), a.at(2));
      if (x.H % a.at(0) != 0) fail(g, t, "heads not divisible by the a2a group size");
      put(0, head_split(x, a.at(0)));
      return;
    }
    case PayloadOp::ChunksToNatural: put(0, chunks_to_natural(in(0), a.at(0))); return;
    case PayloadOp::NaturalToChunks: put(0, natural_to_chunks(columns(in(0), a.at(1), a.at(2)), a.at(0))); return;
    case PayloadOp::SlotsToSequence: {
      const std::int64_t A = a.at(0);
      if (A < 1 || in(0).B % A != 0) fail(g, t, "slots do not divide the batch dimension");
      put(0, slots_to_sequence(in(0), A));
      return;
    }
    case PayloadOp::SequenceToSlots: {
      const std::int64_t A = a.at(0);
      const Tensor<T> x = columns(in(0), a.at(1), a.at(2));
      if (A < 1 || x.L % A != 0) fail(g, t, "slots do not divide the tokens");
      put(0, sequence_to_slots(x, A));
      return;
    }
    case PayloadOp::TokenSlice: {
      const std::int64_t off = a.at(0), len = a.at(1);
      if (off < 0 || len < 0 || off + len > in(0).L) fail(g, t, "token slice out of range");
      put(0, token_slice(in(0), off, len));
      return;
    }
    case PayloadOp::TokenConcat: put(0, checked_concat(g, t, in(0), in(1), Join::Tokens)); return;
    case PayloadOp::IndexerTopK: {
      put(0, indexer_keep(in(0), in(1), in(2), a.at(0), a.at(1), a.at(2) != 0));
      return;
    }
    case PayloadOp::HeadMerge: put(0, head_merge(in(0), a.at(0))); return;
    case PayloadOp::AttnFwd:
    case PayloadOp::AttnBwd: attention_op<T>(p, in, put, tiles); return;
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

}  // namespace

template <typename T>
void run_compute(const TaskGraph& g, TaskId t, BufferAccess<T>& buf, TileKernels* tiles) {
  if constexpr (!std::is_same_v<T, double>)
    if (tiles) throw std::invalid_argument("reference: other attention tile kernels run in double precision only");
  compute_op(g, t, g.payloads().at(g.payload_of(t)), buf, tiles);
}

template void run_compute<double>(const TaskGraph&, TaskId, BufferAccess<double>&, TileKernels*);
template void run_compute<float>(const TaskGraph&, TaskId, BufferAccess<float>&, TileKernels*);

}  // namespace hcpsim::reference
