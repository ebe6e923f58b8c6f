// The SimGrid timers of the JIT executor (jit_executor_impl.h): communication tasks that end after
// their host overhead, and in Timer mode the GPUs' kernel ends under processor sharing.
#include <algorithm>
#include <type_traits>

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Engine.hpp>

#include "sim/jit_executor_impl.h"

namespace hcpsim::sim::jit {

void Executor::finish_comm(TaskId t, double now, double extra_s) {
  const double over = extra_s + (costs_.comm_overhead_s ? costs_.comm_overhead_s(g_.task(t)) : 0.0);
  if (!(over > 0)) return complete(t, now);
  at_instant(delayed_, now + over, t);
}

void Executor::on_delay_timer(std::uint32_t slot) noexcept {
  guarded([&] {
    const double at = sg4::Engine::get_clock();
    delayed_.fired(slot);
    for (std::size_t i = 0; i < delayed_.slots[slot].size(); ++i) {   // by index: the pool may grow
      complete(delayed_.slots[slot][i], at);
      drain(at);
    }
    delayed_.release(slot);
  });
}

template <class Item>
void Executor::at_instant(InstantTimers<Item>& pool, double at, const Item& item) {
  if (pool.last != kNone && at == pool.last_at) {
    pool.slots[pool.last].push_back(item);
    return;
  }
  std::uint32_t slot;
  if (!pool.free.empty()) {
    slot = pool.free.back();
    pool.free.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(pool.slots.size());
    pool.slots.emplace_back();
  }
  pool.slots[slot].push_back(item);
  pool.last = slot;
  pool.last_at = at;
  if constexpr (std::is_same_v<Item, TaskId>)
    simgrid::kernel::timer::Timer::set(at, [this, slot] { on_delay_timer(slot); });
  else
    simgrid::kernel::timer::Timer::set(at, [this, slot] { on_gpu_timers(slot); });
}

void Executor::add_comm_load(TaskId t, int sign, double now) {
  if (mode_ != ComputeMode::Timer || !costs_.comm_load) return;
  const Task& task = g_.task(t);
  const auto rank = static_cast<std::uint32_t>(task.rank);
  SharedGpu& gpu = gpus_[rank];
  if (sign > 0) {
    const double load = costs_.comm_load(task);
    if (!(load > 0)) return;
    gpu.comm_tasks.emplace_back(t, load);
    gpu.comm_load += load;
  } else {
    auto it = std::find_if(gpu.comm_tasks.begin(), gpu.comm_tasks.end(), [t](const auto& e) { return e.first == t; });
    if (it == gpu.comm_tasks.end()) return;   // its load was 0
    const double load = it->second;
    *it = gpu.comm_tasks.back();
    gpu.comm_tasks.pop_back();
    gpu.comm_load = gpu.comm_tasks.empty() ? 0.0 : gpu.comm_load - load;
  }
  gpu.ps.set_comm_load(now, gpu.comm_load);
  arm(rank, now);
}

void Executor::arm(std::uint32_t rank, double) {
  SharedGpu& gpu = gpus_[rank];
  if (gpu.arm_pending) return;
  gpu.arm_pending = true;
  to_arm_.push_back(rank);
}

void Executor::rearm(std::uint32_t rank, double now) {
  SharedGpu& gpu = gpus_[rank];
  ++gpu.timer_gen;   // its pending entry, if any, no longer counts
  if (!gpu.ps.busy()) return;
  at_instant(gpu_timers_, gpu.ps.next_end_s(now), GpuTimerEntry{rank, gpu.timer_gen});
}

void Executor::on_gpu_timers(std::uint32_t slot) noexcept {
  guarded([&] {
    const double now = sg4::Engine::get_clock();
    gpu_timers_.fired(slot);
    for (std::size_t i = 0; i < gpu_timers_.slots[slot].size(); ++i) {   // by index: the pool may grow
      const GpuTimerEntry e = gpu_timers_.slots[slot][i];
      SharedGpu& gpu = gpus_[e.rank];
      if (gpu.timer_gen != e.gen) continue;
      finished_.clear();
      gpu.ps.pop_ended(now, finished_);
      arm(e.rank, now);
      for (TaskId t : finished_) complete(t, now);
      drain(now);
    }
    gpu_timers_.release(slot);
  });
}

}  // namespace hcpsim::sim::jit
