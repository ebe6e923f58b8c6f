#include "kernels/run_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "engine/layout/rank_layout.h"
#include "engine/reference/executor.h"
#include "engine/schedule/build.h"

namespace hcpsim::kernels {

double default_check_tolerance(bool bf16_tiles) { return bf16_tiles ? 3e-2 : 1e-4; }

void require_real_data_size(const Scenario& s, bool check, bool bf16_tiles) {
  const std::int64_t seq = s.model.seq_length, heads = s.model.num_attention_heads, dim = s.head_dim();
  const std::int64_t mbs = std::max(1, s.train.micro_batch_size);
  const std::string sizes = "model.seq_length (" + std::to_string(seq) + ") x model.num_attention_heads (" +
                            std::to_string(heads) + ") x model.kv_channels (" + std::to_string(dim) +
                            ") x train.micro_batch_size (" + std::to_string(mbs) + ")";
  const std::string fits = "model.seq_length=" + std::to_string(8 * std::max(1, s.cp()));
  if (seq * heads * dim * mbs > kCpuDeviceMaxValues)
    throw std::runtime_error("real-data runs hold whole tensors on the host: " + sizes + " must be at most 2^24 (" +
                             std::to_string(kCpuDeviceMaxValues) + "); shrink it with overrides, e.g. " + fits);
  if (!check) return;
  const GraphOptions go = graph_options_from(s);
  if (!(go.forward && go.backward))
    throw std::runtime_error("--check compares O, dQ, dK and dV: it needs simulation.forward and simulation.backward "
                             "true and train.mode train");
  if (bf16_tiles) {
    if (dim != 64 && dim != 128)
      throw std::runtime_error("--check on GPUs runs the CUDA attention kernels, which take model.kv_channels 64 or "
                               "128, not " + std::to_string(dim) + " (override model.kv_channels=64)");
    if (s.model.dsa.enabled || (s.hyperparallel_cp() && s.hyperparallel.dsa()))
      throw std::runtime_error("--check on GPUs: the CUDA kernels have no DSA sparse mask (model.dsa, "
                               "hyperparallel.style DSA or AsyncDSA); `run --device cpu --check` checks DSA schedules");
  }
  const double macs = static_cast<double>(seq) * static_cast<double>(seq) * static_cast<double>(heads) *
                      static_cast<double>(dim) * static_cast<double>(mbs);
  if (macs > static_cast<double>(kCheckMaxDenseMacs)) {
    const auto fit = static_cast<std::int64_t>(
        std::sqrt(static_cast<double>(kCheckMaxDenseMacs) / static_cast<double>(heads * dim * mbs)));
    char work[64];
    std::snprintf(work, sizeof work, "%.3g", macs);
    throw std::runtime_error("--check compares with dense attention computed on one CPU core: model.seq_length^2 x "
                             "model.num_attention_heads x model.kv_channels x train.micro_batch_size must be at most "
                             "2^32 multiply-adds (here " + std::to_string(seq) + "^2 x " + std::to_string(heads) +
                             " x " + std::to_string(dim) + " x " + std::to_string(mbs) + " = " + work +
                             "); with these heads and head dim, model.seq_length up to " + std::to_string(fit) +
                             " fits");
  }
}

reference::VerifyResult check_in_one_process(const Scenario& s, reference::TileKernels* tiles, std::uint64_t seed,
                                             double tolerance) {
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions go = graph_options_from(s);
  go.with_payloads = true;
  go.whole_layer = false;   // GEMMs and TP collectives carry no payloads
  const TaskGraph g = build_task_graph(s, layout, go);
  reference::ExecOptions eo;
  eo.seed = seed;
  eo.tile_kernels = tiles;
  const auto ex = reference::execute_reference(g, s, layout, eo);
  auto v = reference::compare_with_dense(s, layout, g.layers, seed, tolerance, ex.results);
  v.tasks = g.size();
  return v;
}

std::string check_report_text(const reference::VerifyResult& c) {
  char line[200];
  std::snprintf(line, sizeof line, "check: max relative error %.3g (O %.3g, dQ %.3g, dK %.3g, dV %.3g; tolerance %.0e)",
                std::max({c.out, c.dq, c.dk, c.dv}), c.out, c.dq, c.dk, c.dv, c.tolerance);
  std::string s = line;
  if (!c.detail.empty()) s += "\ncheck: " + c.detail;
  return s;
}

nlohmann::json check_report_json(const reference::VerifyResult& c, const std::string& tiles) {
  nlohmann::json j = {{"max_rel_error", std::max({c.out, c.dq, c.dk, c.dv})},
                      {"out", c.out},
                      {"dq", c.dq},
                      {"dk", c.dk},
                      {"dv", c.dv},
                      {"tolerance", c.tolerance},
                      {"ok", c.ok}};
  if (!tiles.empty()) j["tiles"] = tiles;
  if (!c.detail.empty()) j["detail"] = c.detail;
  return j;
}

}  // namespace hcpsim::kernels
