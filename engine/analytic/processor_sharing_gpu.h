#pragma once
// One GPU under processor sharing, in virtual time: with n kernels active, virtual time advances at
// 1/n per second, and a kernel of `work` seconds that starts at virtual time v ends when virtual
// time reaches v + work. The analytic backend and the simgrid backend's timer mode both run their
// compute kernels on this, so the two model overlapping kernels identically.
//
// Communication kernels (NCCL) are not processor-shared kernels here: while they run they take a
// fraction `load` of the GPU (SMs for their channels, HBM bandwidth for their traffic; CostModel::
// comm_compute_load), and the compute kernels share what is left, share = max(kMinShare, 1 - load):
// virtual time then advances at share/n per second.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "engine/graph/task_graph.h"

namespace hcpsim {

class ProcessorSharingGpu {
 public:
  // Kernel `t` of `work_s` seconds (alone on the GPU) starts at `now_s`.
  void start(double now_s, double work_s, TaskId t) {
    advance(now_s);
    heap_.emplace_back(vtime_ + work_s, t);
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }

  bool busy() const { return !heap_.empty(); }

  // Communication kernels now take `load` (>= 0) of the GPU from `now_s` on (0: none).
  void set_comm_load(double now_s, double load) {
    advance(now_s);
    share_ = load <= 0 ? 1.0 : std::max(kMinShare, 1.0 - load);
  }
  // Fraction of the GPU the compute kernels share now (1 without communication load).
  double compute_share() const { return share_; }

  // Smallest share compute keeps however many NCCL calls run at once.
  static constexpr double kMinShare = 0.05;

  // When the earliest running kernel ends if no kernel starts or ends before (call when busy()).
  double next_end_s(double now_s) const {
    const double left_v = std::max(0.0, heap_.front().first - vtime_);
    return std::max(updated_s_, now_s) + left_v * static_cast<double>(heap_.size()) / share_;
  }

  // Advances to `now_s` and appends to `ended` the earliest kernel and every other kernel that
  // ends within rounding (1e-12 relative) of it (call when busy(), at next_end_s()).
  void pop_ended(double now_s, std::vector<TaskId>& ended) {
    advance(now_s);
    const double tol = 1e-12 * std::max(1.0, std::abs(vtime_));
    do {
      std::pop_heap(heap_.begin(), heap_.end(), Later{});
      ended.push_back(heap_.back().second);
      heap_.pop_back();
    } while (!heap_.empty() && heap_.front().first <= vtime_ + tol);
  }

 private:
  struct Later {
    bool operator()(const std::pair<double, TaskId>& x, const std::pair<double, TaskId>& y) const {
      return x.first != y.first ? x.first > y.first : x.second > y.second;
    }
  };

  void advance(double now_s) {
    if (!heap_.empty()) vtime_ += (now_s - updated_s_) * share_ / static_cast<double>(heap_.size());
    updated_s_ = now_s;
  }

  double vtime_ = 0;
  double updated_s_ = 0;
  double share_ = 1.0;
  std::vector<std::pair<double, TaskId>> heap_;   // (finishing virtual time, task), min-heap
};

}  // namespace hcpsim
