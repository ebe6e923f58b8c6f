#include "engine/reference/reference_backend.h"

#include <memory>
#include <stdexcept>

#include "engine/reference/executor.h"

namespace hcpsim {

namespace {

class ReferenceBackend : public Backend {
 public:
  std::string name() const override { return "reference"; }
  BackendCapabilities capabilities() const override {
    BackendCapabilities c;
    c.computes_values = true;
    return c;
  }
  void run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) override {
    if (g.size() > 0 && g.payloads().empty())
      throw std::runtime_error("reference backend: the graph has no payloads; build it with with_payloads = true");
    reference::ExecOptions opt;   // one worker: the sink is called from one thread
    std::size_t done = 0;
    reference::execute_reference(g, ctx.scenario, ctx.layout, opt, [&](TaskId id, double start_s, double end_s) {
      const Task& t = g.task(id);
      TraceEvent e;
      e.task = id;
      e.rank = t.rank;
      e.stream = t.stream;
      e.kind = t.kind;
      e.pass = t.pass;
      e.layer = t.layer;
      e.step = t.step;
      e.start_s = start_s;
      e.end_s = end_s;
      e.bytes = t.bytes;
      e.flops = t.flops;
      e.name = g.display_name(t);
      if (t.comm != kNone)
        for (int r : g.comms()[t.comm].ranks)
          if (r != t.rank) e.peers.push_back(r);
      sink.record(e);
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
