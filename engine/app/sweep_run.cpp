#include "engine/app/sweep_run.h"

#include <chrono>
#include <filesystem>

#include "engine/app/backend_catalog.h"
#include "engine/app/point_eval.h"

namespace hcpsim::app {

planning::SweepSpec sweep_spec(const std::string& file, const std::vector<std::string>& vary) {
  if (!std::filesystem::exists(file)) throw std::invalid_argument(file + ": no such file");
  planning::SweepSpec spec;
  if (planning::is_sweep_file(file)) spec = planning::load_sweep_file(file);
  else spec.base_path = file;
  for (const std::string& v : vary) spec.groups.push_back(planning::parse_vary(v));
  if (spec.groups.empty())
    throw std::invalid_argument(file + ": nothing to vary: give KEY=V1,V2,... or a sweep file with `vary:`");
  return spec;
}

SweepRun sweep_points(const planning::SweepSpec& spec, const std::function<void(std::size_t, std::size_t)>& progress,
                      const std::atomic<bool>* cancel) {
  const BackendRegistry& registry = backend_registry();
  if (!spec.backend.empty() && !registry.has(spec.backend))
    throw std::invalid_argument(registry.unknown_name_message(spec.backend));
  SweepRun run;
  run.spec = spec;
  run.columns = planning::sweep_columns(spec);
  const std::vector<planning::SweepPoint> points = planning::expand_points(spec, {});
  run.results.reserve(points.size());
  for (const planning::SweepPoint& p : points) {
    if (cancel != nullptr && cancel->load()) throw SweepCancelled();
    const auto start = std::chrono::steady_clock::now();
    run.results.push_back(planning::evaluate_point(spec.base_path, p, spec.backend, registry, MemoryOptions{}));
    run.results.back().wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (progress) progress(run.results.size(), points.size());
  }
  return run;
}

}  // namespace hcpsim::app
