#include "kernels/cuda_backend.h"

#include <memory>
#include <stdexcept>

#include "kernels/device.h"
#include "kernels/emulated_run.h"

namespace hcpsim::kernels {
namespace {

class CudaBackend : public Backend {
 public:
  std::string name() const override { return "cuda"; }
  BackendCapabilities capabilities() const override { return {.predicts_time = true, .models_contention = false, .computes_values = false}; }   // measured
  void run(const TaskGraph& g, const RunContext& ctx, TraceSink& sink) override {
    std::string why;
    if (cuda_device_count(&why) == 0) throw std::runtime_error("backend cuda: no CUDA device found (" + why + ")");
    EmulateOptions o;
    o.gpus_per_node = ctx.scenario.cluster.gpus_per_node;
    const Trace t = run_emulated(g, o, [&](std::size_t done, std::size_t total) {
      if (ctx.progress) ctx.progress(done, total, 0.0);
    });
    for (const TraceEvent& e : t.events) sink.record(e);
  }
};

}  // namespace

void register_cuda_backend(BackendRegistry& r) {
  r.add("cuda", "real kernels on GPU 0, every rank emulated (compute measured, transfers as device copies)",
        [] { return std::make_unique<CudaBackend>(); });
}

}  // namespace hcpsim::kernels
