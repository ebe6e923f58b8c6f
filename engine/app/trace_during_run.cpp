#include "engine/app/trace_during_run.h"

#include <utility>

#include "engine/fold/folded_event_view.h"
#include "engine/trace/chrome_trace_writer.h"
#include "engine/trace/graph_event_view.h"
#include "engine/trace/streamed_event_view.h"

namespace hcpsim {

TraceDuringRun::TraceDuringRun(const TaskGraph& g, TaskTimesSink& sink, TraceFileJob job)
    : g_(g), sink_(sink), job_(std::move(job)) {
  sink.publish_to(&progress_);
  thread_ = std::thread([this] { work(); });
}

TraceDuringRun::~TraceDuringRun() {
  progress_.abandon();   // harmless after a complete run: every wait is already satisfied
  if (thread_.joinable()) thread_.join();
}

void TraceDuringRun::work() {
  try {
    if (!progress_.wait_started()) return;   // the run failed before its first task time
    // The sink's times exist from the first record on (the start of the run happens before).
    const GraphEventView view(g_, sink_.times(), GraphEventView::PeerStorage::OnDemand);
    const StreamedEventView streamed(view, progress_);
    if (job_.fold != nullptr && job_.fold->folded) {
      const FoldPlan& fold = *job_.fold;
      const FoldedEventView whole(streamed, fold.simulated_ranks,
                                  replicas_kept(job_.filter, fold.simulated_ranks, fold.replicas));
      written_ = write_chrome_trace(whole, job_.header, job_.filter, *job_.out);
    } else {
      written_ = write_chrome_trace(streamed, job_.header, job_.filter, *job_.out);
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

std::size_t TraceDuringRun::finish() {
  if (thread_.joinable()) thread_.join();
  if (error_) std::rethrow_exception(error_);
  return written_;
}

}  // namespace hcpsim
