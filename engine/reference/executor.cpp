#include "engine/reference/executor.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>

#include "engine/reference/data_loader.h"
#include "engine/reference/payload_ops.h"

namespace hcpsim::reference {

namespace {

template <typename T>
class Runner : public BufferAccess<T> {
 public:
  Runner(const TaskGraph& g, const Scenario& s, const RankLayout& lay, const ExecOptions& o, const TaskDoneFn& f)
      : g_(g), s_(s), lay_(lay), opt_(o), on_done_(f), stores_(static_cast<std::size_t>(lay.world_size())) {
    for (auto& st : stores_) st = std::make_unique<Store>();
  }

  const Tensor<T>& get(int rank, std::uint64_t key, TaskId t) override {
    Store& st = *stores_.at(static_cast<std::size_t>(rank));
    std::lock_guard<std::mutex> lock(st.m);
    auto it = st.bufs.find(key);
    if (it == st.bufs.end())
      throw std::runtime_error("reference: rank " + std::to_string(rank) + " task " + g_.display_name(g_.task(t)) +
                               " reads buffer " + describe_key(key) +
                               " that no finished task has written (a missing dependency edge?)");
    return it->second;
  }

  void put(int rank, std::uint64_t key, Tensor<T>&& v, TaskId t) override {
    Store& st = *stores_.at(static_cast<std::size_t>(rank));
    std::lock_guard<std::mutex> lock(st.m);
    if (!st.bufs.emplace(key, std::move(v)).second)
      throw std::runtime_error("reference: rank " + std::to_string(rank) + " task " + g_.display_name(g_.task(t)) +
                               " writes buffer " + describe_key(key) + " a second time");
  }

  ExecResult run() {
    load_inputs();
    const std::size_t N = g_.size();
    const std::vector<std::uint32_t> indeg = g_.in_degrees();
    indeg_.resize(N);
    op_ready_.assign(g_.comms().size(), 0);
    for (TaskId i = 0; i < N; ++i) {
      indeg_[i] = indeg[i];
      if (g_.payload_of(i) == kNone)
        throw std::runtime_error("reference: task " + g_.display_name(g_.task(i)) + " on rank " +
                                 std::to_string(g_.task(i).rank) +
                                 " has no payload; build the graph with GraphOptions::with_payloads = true");
    }
    t0_ = std::chrono::steady_clock::now();
    for (TaskId i = 0; i < N; ++i)
      if (indeg_[i] == 0) make_ready(i);
    if (opt_.workers <= 1) run_serial();
    else run_threads();
    if (done_ != N) throw std::runtime_error(stuck_message());
    return collect();
  }

 private:
  struct Store {
    std::mutex m;
    std::unordered_map<std::uint64_t, Tensor<T>> bufs;
  };
  static constexpr std::uint64_t kCommBit = 1ull << 40;

  const TaskGraph& g_;
  const Scenario& s_;
  const RankLayout& lay_;
  const ExecOptions& opt_;
  const TaskDoneFn& on_done_;
  std::vector<std::unique_ptr<Store>> stores_;
  std::vector<std::size_t> indeg_;
  std::vector<std::size_t> op_ready_;
  std::vector<std::uint64_t> ready_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point t0_;
  // thread pool state
  std::mutex m_;
  std::condition_variable cv_;
  int busy_ = 0;
  std::exception_ptr error_;

  void load_inputs() {
    for (int r = 0; r < lay_.world_size(); ++r)
      for (int l = 0; l < g_.layers; ++l) {
        const RankCoord& c = lay_.coord(r);
        Store& st = *stores_[static_cast<std::size_t>(r)];
        st.bufs[buffer_key(BufName::Q, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::Q);
        st.bufs[buffer_key(BufName::K, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::K);
        st.bufs[buffer_key(BufName::V, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::V);
        st.bufs[buffer_key(BufName::DOut, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::DOut);
        if (s_.hyperparallel_cp() && s_.hyperparallel.dsa()) {   // the indexer's inputs
          st.bufs[buffer_key(BufName::IndexQ, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::IndexQ);
          st.bufs[buffer_key(BufName::IndexK, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::IndexK);
          st.bufs[buffer_key(BufName::IndexW, l, 0)] = rank_input<T>(s_, c, opt_.seed, l, InputTensor::IndexW);
        }
      }
  }

  // Caller holds m_ in threaded mode.
  void make_ready(TaskId t) {
    const Task& task = g_.task(t);
    if (task.comm != kNone) {
      const auto c = task.comm;
      if (++op_ready_[c] == g_.comms()[c].tasks.size()) ready_.push_back(kCommBit | c);
      return;
    }
    ready_.push_back(t);
  }

  void finish(TaskId t) {
    ++done_;
    for (TaskId s : g_.successors(t))
      if (--indeg_[s] == 0) make_ready(s);
  }

  double now_s() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

  // Executes one work item (a compute task or a whole CommOp); returns the tasks it completed.
  std::vector<TaskId> execute(std::uint64_t item) {
    const double start = now_s();
    std::vector<TaskId> finished;
    if (item & kCommBit) {
      const auto c = static_cast<std::uint32_t>(item & ~kCommBit);
      run_comm(g_, g_.comms()[c], *this);
      finished = g_.comms()[c].tasks;
    } else {
      const auto t = static_cast<TaskId>(item);
      run_compute(g_, t, *this, opt_.tile_kernels);
      finished.push_back(t);
    }
    const double end = now_s();
    if (on_done_)
      for (TaskId t : finished) on_done_(t, start, end);
    return finished;
  }

  void run_serial() {
    std::mt19937_64 rng(opt_.order_seed);
    while (!ready_.empty()) {
      const std::size_t i = static_cast<std::size_t>(rng() % ready_.size());
      const std::uint64_t item = ready_[i];
      ready_[i] = ready_.back();
      ready_.pop_back();
      for (TaskId t : execute(item)) finish(t);
    }
  }

  void run_threads() {
    auto worker = [this]() {
      std::unique_lock<std::mutex> lock(m_);
      for (;;) {
        cv_.wait(lock, [&] { return error_ || !ready_.empty() || (busy_ == 0 && ready_.empty()); });
        if (error_ || ready_.empty()) return;
        const std::uint64_t item = ready_.back();
        ready_.pop_back();
        ++busy_;
        lock.unlock();
        std::vector<TaskId> fin;
        try {
          fin = execute(item);
        } catch (...) {
          lock.lock();
          if (!error_) error_ = std::current_exception();
          --busy_;
          cv_.notify_all();
          return;
        }
        lock.lock();
        for (TaskId t : fin) finish(t);
        --busy_;
        cv_.notify_all();
      }
    };
    std::vector<std::thread> pool;
    for (int i = 0; i < opt_.workers; ++i) pool.emplace_back(worker);
    for (auto& th : pool) th.join();
    if (error_) std::rethrow_exception(error_);
  }

  std::string stuck_message() const {
    std::string names;
    int shown = 0;
    for (TaskId i = 0; i < g_.size() && shown < 5; ++i)
      if (indeg_[i] > 0 || (g_.task(i).comm != kNone && op_ready_[g_.task(i).comm] < g_.comms()[g_.task(i).comm].tasks.size())) {
        names += (shown ? ", " : "") + ("rank " + std::to_string(g_.task(i).rank) + " " + g_.display_name(g_.task(i)));
        ++shown;
      }
    return "reference: " + std::to_string(g_.size() - done_) + " tasks never ran (deadlock), e.g. " + names;
  }

  Tensor<double> fetch(int rank, BufName n, int layer) {
    Store& st = *stores_[static_cast<std::size_t>(rank)];
    auto it = st.bufs.find(buffer_key(n, layer, 0));
    if (it == st.bufs.end()) return {};
    Tensor<double> out(it->second.B, it->second.L, it->second.H, it->second.D);
    for (std::size_t i = 0; i < out.v.size(); ++i) out.v[i] = static_cast<double>(it->second.v[i]);
    return out;
  }

  ExecResult collect() {
    ExecResult r;
    r.tasks_run = done_;
    r.results.resize(static_cast<std::size_t>(lay_.world_size()));
    for (int rank = 0; rank < lay_.world_size(); ++rank)
      for (int l = 0; l < g_.layers; ++l) {
        RankLayerResult x{fetch(rank, BufName::Out, l), fetch(rank, BufName::DQ, l), fetch(rank, BufName::DK, l),
                          fetch(rank, BufName::DV, l)};
        r.results[static_cast<std::size_t>(rank)][l] = std::move(x);
      }
    return r;
  }
};

}  // namespace

ExecResult execute_reference(const TaskGraph& g, const Scenario& s, const RankLayout& layout, const ExecOptions& opt,
                             const TaskDoneFn& on_done) {
  if (opt.use_float && opt.tile_kernels)
    throw std::invalid_argument("reference: ExecOptions::tile_kernels needs double precision (use_float false)");
  if (opt.use_float) return Runner<float>(g, s, layout, opt, on_done).run();
  return Runner<double>(g, s, layout, opt, on_done).run();
}

}  // namespace hcpsim::reference
