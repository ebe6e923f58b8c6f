#include "engine/reference/reference_backend.h"

#include <memory>
#include <stdexcept>

#include "engine/reference/executor.h"

namespace hcpsim {

namespace {

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "reference"; }
  BackendCapabilities capabilities() const override { return {.predicts_time = false, .models_contention = false, .computes_values = true}; }
  void run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) override {
    if (g.size() > 0 && g.payloads().empty())
      throw std::runtime_error("reference backend: the graph has no payloads; build it with with_payloads = true");
    reference::ExecOptions opt;   // one worker: the sink is called from one thread
    std::size_t done = 0;
    reference::execute_reference(g, ctx.scenario, ctx.layout, opt, [&](TaskId id, double start_s, double end_s) {
      sink.record(make_event(g, g.task(id), start_s, end_s));
      if (ctx.progress) ctx.progress(++done, g.size(), end_s);
    });
  }
};

}  // namespace

void register_reference_backend(BackendRegistry& r) {
  r.add("reference", "CPU reference executor: real numbers, proves outputs and gradients exact (wall-clock times)",
        [] { return std::make_unique<ReferenceBackend>(); });
}

}  // namespace hcpsim
