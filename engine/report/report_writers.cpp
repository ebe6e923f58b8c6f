#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>
#include <sstream>

#include "engine/error_band/error_band_json.h"
#include "engine/report/report.h"
#include "engine/report/report_guard.h"

namespace hcpsim {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string ms(double s) { return fmt("%.4f", s * 1e3); }
std::string mib(double b) { return fmt("%.2f", b / (1024.0 * 1024.0)); }

void row(std::ostringstream& os, const std::string& name, const std::string& value, const std::string& unit) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-38s %14s  %s\n", name.c_str(), value.c_str(), unit.c_str());
  os << buf;
}

// A layer's slowest rank, or null when its pass was not simulated (-1).
nlohmann::json rank_or_null(int rank) { return rank < 0 ? nlohmann::json(nullptr) : nlohmann::json(rank); }

// The step's error band (engine/error_band/error_band.h): the class, and the ranges of the step time
// and of tokens/s per GPU that the backtest's holdout errors of that class give.
void error_band_rows(std::ostringstream& os, const StepReport& st) {
  const std::string cls = st.mode == "prefill" ? "prefill" : "whole-step";
  if (!st.error_band) {
    os << "  error band: none (fewer than " << accuracy::kMinBandHoldoutCases << " holdout " << cls
       << " cases of this precision or level in validation/published)\n";
    return;
  }
  const accuracy::ErrorBand& b = *st.error_band;
  os << "  error band: " << accuracy::describe(b) << ", measured / predicted time - 1\n";
  row(os, "  step time within", ms(b.time_low(st.time_s)) + " .. " + ms(b.time_high(st.time_s)), "ms");
  row(os, "  tokens per second per GPU within",
      fmt("%.2f", b.rate_low(st.tokens_per_s_per_gpu)) + " .. " + fmt("%.2f", b.rate_high(st.tokens_per_s_per_gpu)),
      "tokens/s");
}

}  // namespace

std::string report_to_text(const Report& r, const ReportOptions& options) {
  check_report_values(r);
  std::ostringstream os;
  os << "hcpsim report: " << r.scenario << " (backend " << r.backend << ")\n";
  if (!r.configuration.empty()) os << "  configuration: " << r.configuration << "\n";
  for (const auto& o : r.overrides) os << "  override: " << o << "\n";
  os << "  world size " << r.world_size << ", " << r.gpus_per_node << " GPUs per node, " << r.tasks << " tasks, "
     << r.layers_simulated << " of " << r.num_layers << " layers simulated"
     << (r.whole_layer ? ", whole layer" : ", attention only") << "\n";
  if (r.fold && r.fold->folded)
    os << "  folded: " << r.fold->simulated_ranks << " ranks simulated for the job's " << r.fold->represented_ranks
       << " (" << r.fold->replicas << " identical replicas that share no link; sums below are for every rank)\n";
  else if (r.cluster_world_size > r.world_size)
    os << "  the job has " << r.cluster_world_size << " GPUs: pipeline stages and data-parallel replicas run the same "
       << "layer graph and are simulated once\n";
  if (r.fold && !r.fold->note.empty()) os << "  fold: " << r.fold->note << "\n";
  os << "\n";
  os << "Per layer (slowest rank, mean over simulated layers)\n";
  if (r.has_forward) {
    row(os, "attention forward", ms(r.attention_forward_s), "ms");
    row(os, "  exposed communication", ms(r.exposed_comm_forward_s), "ms");
    row(os, "  attention throughput", fmt("%.1f", r.attention_forward_tflops_per_gpu), "TFLOP/s per GPU");
  }
  if (r.has_backward) {
    row(os, "attention backward", ms(r.attention_backward_s), "ms");
    row(os, "  exposed communication", ms(r.exposed_comm_backward_s), "ms");
    row(os, "  attention throughput", fmt("%.1f", r.attention_backward_tflops_per_gpu), "TFLOP/s per GPU");
  }
  if (r.whole_layer) {
    if (r.has_forward) row(os, "whole layer forward", ms(r.layer_forward_s), "ms");
    if (r.has_backward) row(os, "whole layer backward", ms(r.layer_backward_s), "ms");
  }
  os << "\nWhole run\n";
  row(os, r.measured ? "measured time (makespan)" : "simulated time (makespan)", ms(r.makespan_s), "ms");
  row(os, "one micro-batch through num_layers layers", ms(r.step_s), "ms");
  row(os, "communication hidden by compute", fmt("%.1f", 100.0 * r.overlap_fraction), "%");
  row(os, "bytes on intra-node links", mib(r.bytes_intra_node), "MiB");
  row(os, "bytes on inter-node links", mib(r.bytes_inter_node), "MiB");
  row(os, "slowest rank", std::to_string(r.slowest_rank), "");
  if (!r.slowest_rank_wait.empty()) os << "    its most exposed wait: " << r.slowest_rank_wait << "\n";
  if (r.layers.size() > 1) {
    os << "\nLayers (ms)\n";
    char buf[200];
    std::snprintf(buf, sizeof buf, "  %5s %12s %12s %12s %12s\n", "layer", "attn fwd", "attn bwd", "layer fwd", "layer bwd");
    os << buf;
    for (const auto& l : r.layers) {
      std::snprintf(buf, sizeof buf, "  %5d %12s %12s %12s %12s\n", l.layer, ms(l.attention_forward_s).c_str(),
                    ms(l.attention_backward_s).c_str(), ms(l.layer_forward_s).c_str(), ms(l.layer_backward_s).c_str());
      os << buf;
    }
  }
  os << "\nCritical path: " << r.critical_path.size() << " tasks, compute " << ms(r.critical_path_compute_s)
     << " ms, communication " << ms(r.critical_path_comm_s) << " ms, idle " << ms(r.critical_path_idle_s) << " ms\n";
  const std::size_t limit = options.critical_path_text_limit;
  for (std::size_t i = 0; i < r.critical_path.size() && i < limit; ++i) {
    const auto& c = r.critical_path[i];
    char buf[240];
    std::snprintf(buf, sizeof buf, "  %12s ms  %10s ms  rank %-5d %-18s %s\n", ms(c.start_s).c_str(),
                  ms(c.end_s - c.start_s).c_str(), c.rank, to_string(c.kind), c.name.c_str());
    os << buf;
  }
  if (r.critical_path.size() > limit) os << "  ... " << r.critical_path.size() - limit << " more\n";
  if (r.step) {
    const StepReport& st = *r.step;
    const bool prefill = st.mode == "prefill";
    os << (prefill ? "\nPrefill" : "\nTraining step") << " (" << st.global_batch << " sequences, " << st.micro_batches
       << " micro-batches per pipeline" << (st.attention_only ? "; layers timed as attention only" : "") << ")\n";
    if (prefill) row(os, "time to first token", ms(st.ttft_s), "ms");
    row(os, prefill ? "prefill of the global batch" : "step time", ms(st.time_s), "ms");
    row(os, "tokens per second", fmt("%.1f", st.tokens_per_s), "tokens/s");
    row(os, "tokens per second per GPU", fmt("%.2f", st.tokens_per_s_per_gpu), "tokens/s");
    error_band_rows(os, st);
    row(os, "model throughput", fmt("%.1f", st.model_tflops_per_gpu), "TFLOP/s per GPU");
    row(os, "MFU (Megatron: full attention square)", fmt("%.1f", 100.0 * st.mfu), "%");
    row(os, "MFU (causal: attention square halved)", fmt("%.1f", 100.0 * st.mfu_causal), "%");
    row(os, "pipeline bubble", fmt("%.1f", 100.0 * st.pipeline_bubble_fraction), "%");
    row(os, "pipeline (warm-up, steady, cool-down)", ms(st.pipeline_s), "ms");
    row(os, "  stage forward, one micro-batch", ms(st.stage_forward_s), "ms");
    if (!prefill) row(os, "  stage backward, one micro-batch", ms(st.stage_backward_s), "ms");
    if (st.recompute_s > 0) row(os, "    of which recomputation", ms(st.recompute_s), "ms");
    if (st.elementwise_s > 0) row(os, "  elementwise kernels (in both)", ms(st.elementwise_s), "ms");
    row(os, "  embedding (first stage)", ms(st.embedding_s), "ms");
    row(os, "  output layer + loss (last stage)", ms(st.output_layer_s), "ms");
    row(os, "  P2P activation transfer", ms(st.p2p_forward_s), "ms");
    if (!prefill) {
      row(os, "DP gradient reduction (alone)", ms(st.dp_grad_reduce_s), "ms");
      row(os, "DP parameter all-gather (alone)", ms(st.dp_param_gather_s), "ms");
      row(os, "DP exposed", ms(st.dp_exposed_s), "ms");
      if (st.fsdp_param_gather_s > 0) {
        row(os, "FSDP all-gather (one layer, alone)", ms(st.fsdp_param_gather_s), "ms");
        row(os, "FSDP reduce-scatter (one layer, alone)", ms(st.fsdp_grad_reduce_s), "ms");
        row(os, "FSDP added to the stage", ms(st.fsdp_exposed_s), "ms");
      }
      row(os, "optimizer step", ms(st.optimizer_s), "ms");
    }
  }
  if (r.memory) {
    os << "\nMemory per GPU\n";
    row(os, "peak", mib(r.memory->peak_bytes_per_gpu), "MiB");
    row(os, "capacity", mib(r.memory->capacity_bytes_per_gpu), "MiB");
    for (const auto& [item, b] : r.memory->breakdown_bytes) row(os, "  " + item, mib(b), "MiB");
    if (r.memory->peak_bytes_per_gpu > r.memory->capacity_bytes_per_gpu)
      os << "  WARNING: does not fit: peak exceeds the GPU memory by "
         << mib(r.memory->peak_bytes_per_gpu - r.memory->capacity_bytes_per_gpu)
         << " MiB (times above assume it would)\n";
  }
  return os.str();
}

std::string report_to_json(const Report& r) {
  check_report_values(r);
  using nlohmann::json;
  json j;
  j["scenario"] = r.scenario;
  j["backend"] = r.backend;
  j["configuration"] = r.configuration;
  j["overrides"] = r.overrides;
  j["world_size"] = r.world_size;
  if (r.cluster_world_size > 0) j["cluster_world_size"] = r.cluster_world_size;
  j["gpus_per_node"] = r.gpus_per_node;
  if (r.fold)
    j["fold"] = {{"mode", r.fold->enabled ? "auto" : "off"},
                 {"folded", r.fold->folded},
                 {"simulated_ranks", r.fold->simulated_ranks},
                 {"represented_ranks", r.fold->represented_ranks},
                 {"replicas", r.fold->replicas},
                 {"note", r.fold->note}};
  j["attention"] = {{"forward_s", r.attention_forward_s},
                    {"backward_s", r.attention_backward_s},
                    {"forward_tflops_per_gpu", r.attention_forward_tflops_per_gpu},
                    {"backward_tflops_per_gpu", r.attention_backward_tflops_per_gpu},
                    {"exposed_comm_forward_s", r.exposed_comm_forward_s},
                    {"exposed_comm_backward_s", r.exposed_comm_backward_s}};
  j["layer"] = {{"forward_s", r.layer_forward_s}, {"backward_s", r.layer_backward_s}, {"whole_layer", r.whole_layer}};
  j["bytes"] = {{"intra_node", r.bytes_intra_node}, {"inter_node", r.bytes_inter_node}};
  j["tasks"] = r.tasks;
  j["wall_s"] = r.wall_s;
  j["makespan_s"] = r.makespan_s;
  j["micro_batch_s"] = r.step_s;   // one micro-batch through num_layers layers
  if (r.step) j["step_s"] = r.step->time_s;   // the whole step (step.time_s), as in sweep and plan
  j["layers_simulated"] = r.layers_simulated;
  j["num_layers"] = r.num_layers;
  j["overlap_fraction"] = r.overlap_fraction;
  j["compute_busy_s"] = r.compute_busy_s;
  j["comm_busy_s"] = r.comm_busy_s;
  j["slowest_rank"] = r.slowest_rank;
  j["slowest_rank_wait"] = r.slowest_rank_wait;
  json layers = json::array();
  for (const auto& l : r.layers)
    layers.push_back({{"layer", l.layer},
                      {"attention_forward_s", l.attention_forward_s},
                      {"attention_backward_s", l.attention_backward_s},
                      {"layer_forward_s", l.layer_forward_s},
                      {"layer_backward_s", l.layer_backward_s},
                      {"exposed_comm_forward_s", l.exposed_comm_forward_s},
                      {"exposed_comm_backward_s", l.exposed_comm_backward_s},
                      {"slowest_rank_forward", rank_or_null(l.slowest_rank_forward)},
                      {"slowest_rank_backward", rank_or_null(l.slowest_rank_backward)}});
  j["layers"] = layers;
  json cp = json::array();
  for (const auto& c : r.critical_path)
    cp.push_back({{"task", c.task}, {"rank", c.rank}, {"kind", to_string(c.kind)}, {"name", c.name},
                  {"start_s", c.start_s}, {"end_s", c.end_s}});
  j["critical_path"] = {{"compute_s", r.critical_path_compute_s},
                        {"comm_s", r.critical_path_comm_s},
                        {"idle_s", r.critical_path_idle_s},
                        {"tasks", cp}};
  if (r.step) {
    const StepReport& st = *r.step;
    j["step"] = {{"mode", st.mode},
                 {"time_s", st.time_s},
                 {"tokens_per_s", st.tokens_per_s},
                 {"tokens_per_s_per_gpu", st.tokens_per_s_per_gpu},
                 {"model_tflops_per_gpu", st.model_tflops_per_gpu},
                 {"mfu", st.mfu},
                 {"mfu_causal", st.mfu_causal},
                 {"pipeline_bubble_fraction", st.pipeline_bubble_fraction},
                 {"micro_batches", st.micro_batches},
                 {"global_batch_size", st.global_batch},
                 {"attention_only", st.attention_only},
                 {"breakdown_s",
                  {{"pipeline", st.pipeline_s},
                   {"stage_forward", st.stage_forward_s},
                   {"stage_backward", st.stage_backward_s},
                   {"recompute", st.recompute_s},
                   {"embedding", st.embedding_s},
                   {"output_layer", st.output_layer_s},
                   {"p2p_forward", st.p2p_forward_s},
                   {"p2p_backward", st.p2p_backward_s},
                   {"dp_grad_reduce", st.dp_grad_reduce_s},
                   {"dp_param_gather", st.dp_param_gather_s},
                   {"dp_exposed", st.dp_exposed_s},
                   {"optimizer", st.optimizer_s}}}};
    j["step"]["error_band"] = accuracy::error_band_json(st.error_band, st.time_s, st.tokens_per_s_per_gpu);
    if (st.mode == "prefill") j["step"]["ttft_s"] = st.ttft_s;
    if (st.elementwise_s > 0) j["step"]["breakdown_s"]["elementwise"] = st.elementwise_s;
    if (st.fsdp_param_gather_s > 0) {
      j["step"]["breakdown_s"]["fsdp_param_gather"] = st.fsdp_param_gather_s;
      j["step"]["breakdown_s"]["fsdp_grad_reduce"] = st.fsdp_grad_reduce_s;
      j["step"]["breakdown_s"]["fsdp_exposed"] = st.fsdp_exposed_s;
    }
  }
  if (r.memory) {
    json b = json::object();
    for (const auto& [item, bytes] : r.memory->breakdown_bytes) b[item] = bytes;
    j["memory"] = {{"fits", r.memory->peak_bytes_per_gpu <= r.memory->capacity_bytes_per_gpu},
                   {"peak_bytes_per_gpu", r.memory->peak_bytes_per_gpu},
                   {"capacity_bytes_per_gpu", r.memory->capacity_bytes_per_gpu},
                   {"breakdown_bytes", b}};
  }
  if (!r.efficiency_sources.empty()) {
    json sources = json::array();
    for (const EfficiencySource& e : r.efficiency_sources)
      sources.push_back({{"quantity", e.quantity}, {"value", e.value}, {"origin", to_string(e.origin)}, {"detail", e.detail}});
    j["efficiency_sources"] = sources;
  }
  return j.dump(2) + "\n";
}

std::string report_to_csv(const Report& r) {
  check_report_values(r);
  std::ostringstream os;
  os << "metric,value,unit\n";
  auto put = [&](const char* name, double v, const char* unit) { os << name << ',' << fmt("%.9g", v) << ',' << unit << '\n'; };
  auto quoted = [](const std::string& v) {   // RFC 4180: fields with commas or quotes are quoted
    if (v.find_first_of(",\"\n") == std::string::npos) return v;
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  os << "scenario," << quoted(r.scenario) << ",\nbackend," << r.backend << ",\n";
  os << "configuration," << quoted(r.configuration) << ",\n";
  for (const auto& o : r.overrides) os << "override," << quoted(o) << ",\n";
  put("world_size", r.world_size, "ranks");
  put("tasks", static_cast<double>(r.tasks), "tasks");
  if (r.fold) {
    put("fold_simulated_ranks", r.fold->simulated_ranks, "ranks");
    put("fold_represented_ranks", r.fold->represented_ranks, "ranks");
  }
  put("attention_forward_s", r.attention_forward_s, "s");
  put("attention_backward_s", r.attention_backward_s, "s");
  put("attention_forward_tflops_per_gpu", r.attention_forward_tflops_per_gpu, "TFLOP/s");
  put("attention_backward_tflops_per_gpu", r.attention_backward_tflops_per_gpu, "TFLOP/s");
  put("exposed_comm_forward_s", r.exposed_comm_forward_s, "s");
  put("exposed_comm_backward_s", r.exposed_comm_backward_s, "s");
  put("layer_forward_s", r.layer_forward_s, "s");
  put("layer_backward_s", r.layer_backward_s, "s");
  put("makespan_s", r.makespan_s, "s");
  put("micro_batch_s", r.step_s, "s");
  put("overlap_fraction", r.overlap_fraction, "fraction");
  put("bytes_intra_node", r.bytes_intra_node, "bytes");
  put("bytes_inter_node", r.bytes_inter_node, "bytes");
  put("slowest_rank", r.slowest_rank, "rank");
  put("critical_path_tasks", static_cast<double>(r.critical_path.size()), "tasks");
  put("critical_path_comm_s", r.critical_path_comm_s, "s");
  put("wall_s", r.wall_s, "s");
  if (r.memory) put("memory_peak_bytes_per_gpu", r.memory->peak_bytes_per_gpu, "bytes");
  if (r.step) {
    put("step_s", r.step->time_s, "s");
    if (r.step->mode == "prefill") put("ttft_s", r.step->ttft_s, "s");
    put("tokens_per_s", r.step->tokens_per_s, "tokens/s");
    put("tokens_per_s_per_gpu", r.step->tokens_per_s_per_gpu, "tokens/s");
    put("model_tflops_per_gpu", r.step->model_tflops_per_gpu, "TFLOP/s");
    put("mfu", r.step->mfu, "fraction");
    put("mfu_causal", r.step->mfu_causal, "fraction");
    put("pipeline_bubble_fraction", r.step->pipeline_bubble_fraction, "fraction");
    put("micro_batches", r.step->micro_batches, "micro-batches");
    if (const auto& b = r.step->error_band) {
      put("step_time_band_low_s", b->time_low(r.step->time_s), "s");
      put("step_time_band_high_s", b->time_high(r.step->time_s), "s");
      put("tokens_per_s_per_gpu_band_low", b->rate_low(r.step->tokens_per_s_per_gpu), "tokens/s");
      put("tokens_per_s_per_gpu_band_high", b->rate_high(r.step->tokens_per_s_per_gpu), "tokens/s");
    }
  }
  return os.str();
}

}  // namespace hcpsim
