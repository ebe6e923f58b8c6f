#include "kernels/cpu_device.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/reference/data_loader.h"

namespace hcpsim::kernels {

using reference::Tensor;

namespace {

constexpr std::size_t kHeaderBytes = 4 * sizeof(std::int64_t);

// A tensor as one message: its shape (4 x int64), then its values.
std::vector<char> pack(const Tensor<double>& t) {
  std::vector<char> out(kHeaderBytes + t.v.size() * sizeof(double));
  const std::int64_t shape[4] = {t.B, t.L, t.H, t.D};
  std::memcpy(out.data(), shape, kHeaderBytes);
  if (!t.v.empty()) std::memcpy(out.data() + kHeaderBytes, t.v.data(), t.v.size() * sizeof(double));
  return out;
}

Tensor<double> unpack(const std::vector<char>& in, const std::string& what) {
  std::int64_t shape[4] = {0, 0, 0, 0};
  if (in.size() < kHeaderBytes) throw std::runtime_error(what + ": received a message shorter than a tensor header");
  std::memcpy(shape, in.data(), kHeaderBytes);
  Tensor<double> t(shape[0], shape[1], shape[2], shape[3]);
  if (in.size() != kHeaderBytes + t.v.size() * sizeof(double))
    throw std::runtime_error(what + ": received " + std::to_string(in.size()) + " bytes for a tensor of " +
                             std::to_string(t.v.size()) + " values");
  if (!t.v.empty()) std::memcpy(t.v.data(), in.data() + kHeaderBytes, t.v.size() * sizeof(double));
  return t;
}

std::vector<char> raw(const Tensor<double>& t) {
  std::vector<char> out(t.v.size() * sizeof(double));
  if (!out.empty()) std::memcpy(out.data(), t.v.data(), out.size());
  return out;
}

Tensor<double> from_raw(const std::vector<char>& in, std::int64_t B, std::int64_t L, std::int64_t H, std::int64_t D) {
  Tensor<double> t(B, L, H, D);
  if (in.size() != t.v.size() * sizeof(double)) throw std::runtime_error("received buffer of the wrong size");
  if (!t.v.empty()) std::memcpy(t.v.data(), in.data(), in.size());
  return t;
}

// Message tags: a CommOp index and the message's position in its payload lists.
int message_tag(std::uint32_t op, std::size_t k) {
  constexpr int kTagLimit = 32767;   // the MPI standard's smallest MPI_TAG_UB
  return static_cast<int>((static_cast<std::uint64_t>(op) * 8 + k) % kTagLimit);
}

}  // namespace

CpuDevice::CpuDevice(const TaskGraph& g, const Scenario& s, const RankLayout& layout, int rank, std::uint64_t seed,
                     reference::TileKernels* tiles)
    : g_(g), s_(s), layout_(layout), rank_(rank), seed_(seed), tiles_(tiles),
      name_(tiles ? std::string("cpu+") + tiles->name() : std::string("cpu")) {
  for (TaskId id = 0; id < g.size(); ++id)
    if (g.task(id).rank == rank && g.payload_of(id) == kNone)
      throw std::invalid_argument("cpu device: " + g.display_name(g.task(id)) +
                                  " has no payload; build the graph with GraphOptions::with_payloads");
}

CpuDevice::~CpuDevice() = default;

double CpuDevice::now_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
}

void CpuDevice::begin_pass() {
  if (!pending_.empty()) throw std::logic_error("cpu device: a pass began with communication still pending");
  if (rank_ < 0 || rank_ >= layout_.world_size()) throw std::invalid_argument("cpu device: rank out of range");
  bufs_.clear();
  const RankCoord& c = layout_.coord(rank_);
  using reference::InputTensor;
  for (int l = 0; l < g_.layers; ++l) {
    bufs_[buffer_key(BufName::Q, l, 0)] = reference::rank_input<double>(s_, c, seed_, l, InputTensor::Q);
    bufs_[buffer_key(BufName::K, l, 0)] = reference::rank_input<double>(s_, c, seed_, l, InputTensor::K);
    bufs_[buffer_key(BufName::V, l, 0)] = reference::rank_input<double>(s_, c, seed_, l, InputTensor::V);
    bufs_[buffer_key(BufName::DOut, l, 0)] = reference::rank_input<double>(s_, c, seed_, l, InputTensor::DOut);
  }
  done_.assign(g_.size(), 0);
  start_s_.assign(g_.size(), 0);
  end_s_.assign(g_.size(), 0);
  queues_.assign(kStreamCount, {});
  collective_order_.clear();
  comm_of_.clear();
  t0_ = std::chrono::steady_clock::now();
}

const Tensor<double>& CpuDevice::get(int rank, std::uint64_t key, TaskId t) {
  auto it = bufs_.find(key);
  if (rank != rank_ || it == bufs_.end())
    throw std::runtime_error("rank " + std::to_string(rank_) + ": task " + std::to_string(t) + " (" +
                             g_.display_name(g_.task(t)) + ") reads buffer " + reference::describe_key(key) +
                             " that no finished task of this rank has written (a missing dependency edge?)");
  return it->second;
}

void CpuDevice::put(int rank, std::uint64_t key, Tensor<double>&& v, TaskId t) {
  if (rank != rank_ || !bufs_.emplace(key, std::move(v)).second)
    throw std::runtime_error("rank " + std::to_string(rank_) + ": task " + std::to_string(t) + " (" +
                             g_.display_name(g_.task(t)) + ") writes buffer " + reference::describe_key(key) +
                             " a second time");
}

bool CpuDevice::deps_done(TaskId id) const {
  for (TaskId d : g_.deps(id))
    if (g_.task(d).rank == rank_ && !done_[d]) return false;
  return true;
}

void CpuDevice::compute(TaskId id) { queues_[static_cast<std::size_t>(g_.task(id).stream)].push_back(id); }

void CpuDevice::communicate(TaskId id, RankComm& comm, const std::string& what) {
  const Task& t = g_.task(id);
  const CommOp& op = g_.comms().at(t.comm);
  if (op.kind != TaskKind::SendRecv) collective_order_[static_cast<int>(op.group)].push_back(id);
  comm_of_[id] = {&comm, what};
  queues_[static_cast<std::size_t>(t.stream)].push_back(id);
}

void CpuDevice::progress() {
  for (bool moved = true; moved;) {
    moved = false;
    for (auto& q : queues_) {
      while (!q.empty()) {
        const TaskId id = q.front();
        if (pending_.count(id)) {   // started communication
          if (!poll_comm(id)) break;
          q.pop_front();
          moved = true;
          continue;
        }
        if (!deps_done(id)) break;
        const Task& t = g_.task(id);
        if (!is_communication(t.kind)) {
          start_s_[id] = now_s();
          reference::run_compute<double>(g_, id, *this, tiles_);
          end_s_[id] = now_s();
          done_[id] = 1;
          q.pop_front();
          moved = true;
          continue;
        }
        const CommOp& op = g_.comms().at(t.comm);
        if (op.kind != TaskKind::SendRecv) {
          auto& order = collective_order_[static_cast<int>(op.group)];
          if (order.empty() || order.front() != id) break;   // an earlier collective on this communicator first
          order.pop_front();
        }
        start_comm(id);
        moved = true;
      }
    }
  }
}

void CpuDevice::start_comm(TaskId id) {
  auto [comm_ptr, what] = comm_of_.at(id);
  comm_of_.erase(id);
  RankComm& comm = *comm_ptr;
  const Task& t = g_.task(id);
  const CommOp& op = g_.comms().at(t.comm);
  const TaskPayload& p = g_.payloads().at(g_.payload_of(id));
  const auto pos = std::find(op.ranks.begin(), op.ranks.end(), rank_);
  if (pos == op.ranks.end()) throw std::runtime_error(what + ": this rank is not a member of its CommOp");
  const int n = static_cast<int>(op.ranks.size());
  auto pend = std::make_unique<Pending>();
  pend->comm = &comm;
  CommCall call;
  call.kind = op.kind;
  call.group = op.group;
  call.member_index = static_cast<int>(pos - op.ranks.begin());
  start_s_[id] = now_s();
  switch (op.kind) {
    case TaskKind::SendRecv: {
      const int dst = static_cast<int>(p.args.at(0)), src = static_cast<int>(p.args.at(1));
      if (dst == rank_ || src == rank_) throw std::runtime_error(what + ": send/recv with itself");
      // Buffers: sends first (one per input), then receives (one per output); reserved up front so
      // that the pointers handed to the communicator stay valid.
      pend->buffers.reserve(p.in.size() + p.out.size());
      for (std::size_t k = 0; k < p.in.size(); ++k) {
        pend->buffers.push_back(pack(get(rank_, p.in[k], id)));
        auto& b = pend->buffers.back();
        call.sends.push_back({dst, message_tag(t.comm, k), b.data(), b.size(), nullptr});
      }
      for (std::size_t k = 0; k < p.out.size(); ++k) {
        pend->buffers.emplace_back();
        call.recvs.push_back({src, message_tag(t.comm, k), nullptr, 0, &pend->buffers.back()});
      }
      const std::size_t first_recv = p.in.size();
      pend->store = [this, id, what, first_recv](Pending& pd) {
        const TaskPayload& pp = g_.payloads().at(g_.payload_of(id));
        for (std::size_t k = 0; k < pp.out.size(); ++k) put(rank_, pp.out[k], unpack(pd.buffers[first_recv + k], what), id);
      };
      break;
    }
    case TaskKind::AllToAll:
    case TaskKind::AllGather:
    case TaskKind::ReduceScatter: {
      const Tensor<double>& x = get(rank_, p.in.at(0), id);
      pend->buffers.reserve(2);
      pend->buffers.push_back(raw(x));
      std::int64_t B = x.B;
      std::size_t count = x.v.size();
      if (op.kind == TaskKind::AllToAll) {
        if (x.v.size() % static_cast<std::size_t>(n) != 0)
          throw std::runtime_error(what + ": all_to_all tensor not divisible into member slots");
        count = x.v.size() / static_cast<std::size_t>(n);
      } else if (op.kind == TaskKind::AllGather) {
        B = x.B * n;
      } else {
        if (x.B % n != 0) throw std::runtime_error(what + ": reduce_scatter tensor not divisible into member slots");
        B = x.B / n;
        count = x.v.size() / static_cast<std::size_t>(n);
        call.element = CommElement::Float64;
      }
      const std::int64_t L = x.L, H = x.H, D = x.D;
      pend->buffers.emplace_back(static_cast<std::size_t>(B * L * H * D) * sizeof(double));
      call.send = pend->buffers[0].data();
      call.recv = pend->buffers[1].data();
      call.count_per_member = op.kind == TaskKind::ReduceScatter ? count : count * sizeof(double);
      pend->store = [this, id, B, L, H, D](Pending& pd) {
        const TaskPayload& pp = g_.payloads().at(g_.payload_of(id));
        put(rank_, pp.out.at(0), from_raw(pd.buffers[1], B, L, H, D), id);
      };
      break;
    }
    default: throw std::runtime_error(what + ": the CPU device cannot run " + to_string(op.kind));
  }
  pend->ticket = comm.start(call, nullptr, what);
  pending_[id] = std::move(pend);
}

bool CpuDevice::poll_comm(TaskId id) {
  auto it = pending_.find(id);
  Pending& pd = *it->second;
  if (!pd.comm->finished(pd.ticket)) return false;
  end_s_[id] = now_s();
  pd.store(pd);
  pending_.erase(it);
  done_[id] = 1;
  return true;
}

bool CpuDevice::finished(TaskId id) {
  if (!done_[id]) progress();
  return done_[id] != 0;
}

std::pair<double, double> CpuDevice::times_s(TaskId id) { return {start_s_[id], end_s_[id]}; }

std::map<int, reference::RankLayerResult> CpuDevice::results() const {
  auto fetch = [&](BufName n, int layer) {
    auto it = bufs_.find(buffer_key(n, layer, 0));
    return it == bufs_.end() ? Tensor<double>{} : it->second;
  };
  std::map<int, reference::RankLayerResult> out;
  for (int l = 0; l < g_.layers; ++l)
    out[l] = {fetch(BufName::Out, l), fetch(BufName::DQ, l), fetch(BufName::DK, l), fetch(BufName::DV, l)};
  return out;
}

}  // namespace hcpsim::kernels
