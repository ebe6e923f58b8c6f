#include "engine/trace/task_times.h"

#include <stdexcept>
#include <string>

namespace hcpsim {

void TaskTimesSink::note(TaskId id, double start_s, double end_s) {
  if (id >= tasks_)
    throw std::runtime_error("backend reported task " + std::to_string(id) + " but the graph has " +
                             std::to_string(tasks_) + " tasks");
  if (times_.empty()) {
    times_.resize(tasks_);
    seen_.assign(tasks_, false);
    if (progress_ != nullptr) progress_->start();
  }
  if (id < published_)
    throw std::runtime_error("backend reported task " + std::to_string(id) +
                             " a second time, after its times were handed to a reader");
  times_[id] = {start_s, end_s};
  if (!seen_[id]) {
    seen_[id] = true;
    ++recorded_;
    if (progress_ != nullptr && id == prefix_) advance_prefix();
  }
}

void TaskTimesSink::advance_prefix() {
  while (prefix_ < tasks_ && seen_[prefix_]) ++prefix_;
  if (prefix_ - published_ >= kPublishEvery_tasks || prefix_ == tasks_) {
    published_ = prefix_;
    progress_->publish(prefix_);
  }
}

void TaskTimesSink::require_complete(const std::string& backend) const {
  if (recorded_ == tasks_) return;
  std::size_t first = 0;
  while (first < seen_.size() && seen_[first]) ++first;
  throw std::runtime_error("backend '" + backend + "' finished without reporting " +
                           std::to_string(tasks_ - recorded_) + " of " + std::to_string(tasks_) +
                           " tasks (first: task " + std::to_string(first) + ")");
}

}  // namespace hcpsim
