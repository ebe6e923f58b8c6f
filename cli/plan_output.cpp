#include "cli/plan_output.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/error_band/error_band.h"
#include "engine/error_band/error_band_json.h"
#include "engine/planning/memory_fit.h"
#include "engine/planning/min_gpus.h"
#include "engine/planning/plan_emit.h"
#include "engine/scenario/pipeline_split.h"
#include "engine/validate/validate.h"
#include "engine/validate/validate_without_placement.h"

namespace hcpsim::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string fixed(double v, int prec) {
  if (std::isnan(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", prec, v);
  return buf;
}

std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// " (band A .. B)": the range of tokens/s per GPU that the error band of the candidate's class gives
// (engine/error_band/error_band.h); "" without a band.
std::string band_text(const Scenario& s, double tokens_per_s_per_gpu) {
  const auto b = accuracy::error_band_for(s);
  if (!b) return "";
  return " (band " + fixed(b->rate_low(tokens_per_s_per_gpu), 1) + " .. " + fixed(b->rate_high(tokens_per_s_per_gpu), 1) + ")";
}

}  // namespace

void print_plan_text(const Scenario& base, const planning::PlanOutcome& out, const PlanPrint& p) {
  std::printf("plan: %s (%s), seq %lld, global batch %d sequences, %d GPUs (%d per node, %.1f GiB each), "
              "backend %s, ranked by %s\n",
              base.display_name().c_str(), to_string(base.train.mode), static_cast<long long>(base.model.seq_length),
              out.global_batch, p.gpus, base.cluster.gpus_per_node, base.cluster.gpu.memory_bytes / kGiB,
              p.backend.c_str(), out.metric.c_str());
  const std::size_t predicted = out.enumerated - out.invalid - out.out_of_memory;
  std::printf("%zu configurations: %zu invalid, %zu out of memory, %zu predicted (%zu failed, %zu the same numbers "
              "as a listed one under another dist.order)\n",
              out.enumerated, out.invalid, out.out_of_memory, predicted, out.failed, out.relabeled);
  if (out.not_predicted > 0)
    std::printf("%zu of the fitting configurations not predicted: their step-time bound cannot reach #%zu "
                "(--no-prune predicts them)\n",
                out.not_predicted, out.best.size());
  if (!out.error_band.empty())
    std::printf("ties: layouts whose predicted range overlaps #1's within the model's error band %s are marked as ties\n",
                out.error_band.c_str());
  std::printf("MFU: the step's model FLOPs at the peak of the precision each op runs in (bf16, or FP8 with model.fp8) "
              "over the step time; Megatron's counts the full attention square, causal halves it\n\n");
  int rank = 0;
  const bool prefill = base.train.mode == TrainMode::Prefill;
  for (const auto& e : out.best) {
    const planning::PointMetrics& m = e.result.metrics;
    if (prefill)
      std::printf("%d. %s\n   TTFT %s s | prefill of the batch %s s | %s tokens/s per GPU | MFU %s%% (causal %s%%) | %s GiB per GPU\n   %s\n",
                  ++rank, e.candidate.label().c_str(), fixed(m.ttft_s, 3).c_str(), fixed(m.step_s, 3).c_str(),
                  fixed(m.tokens_per_s_per_gpu, 1).c_str(), fixed(100.0 * m.mfu, 1).c_str(),
                  fixed(100.0 * m.mfu_causal, 1).c_str(), fixed(e.memory.total_bytes / kGiB, 1).c_str(),
                  e.explanation.c_str());
    else
      std::printf("%d. %s\n   %s tokens/s per GPU%s | step %s s | MFU %s%% (causal %s%%) | bubble %s%% | attention fwd %s ms, "
                  "bwd %s ms | %s GiB per GPU\n   %s\n",
                  ++rank, e.candidate.label().c_str(), fixed(m.tokens_per_s_per_gpu, 1).c_str(),
                  band_text(e.scenario, m.tokens_per_s_per_gpu).c_str(), fixed(m.step_s, 3).c_str(),
                  fixed(100.0 * m.mfu, 1).c_str(), fixed(100.0 * m.mfu_causal, 1).c_str(),
                  fixed(100.0 * m.pipeline_bubble_fraction, 1).c_str(), fixed(m.attention_forward_s * 1e3, 2).c_str(),
                  fixed(m.attention_backward_s * 1e3, 2).c_str(), fixed(e.memory.total_bytes / kGiB, 1).c_str(),
                  e.explanation.c_str());
    if (!e.same_numbers_orders.empty())
      std::printf("   the same numbers with dist.order %s (a relabeling of the same groups)\n",
                  joined(e.same_numbers_orders, ", ").c_str());
  }
  for (const auto& n : out.notes) std::printf("\nnote: %s\n", n.c_str());
  if (!out.invalid_reasons.empty()) {
    std::printf("rejected by validation (first error of each, numbers as N):\n");
    for (const auto& [why, n] : out.invalid_reasons) std::printf("  %5zu x %s\n", n, why.c_str());
  }
  if (!out.out_of_memory_reasons.empty()) {
    std::printf("rejected for memory (valid, above %.1f GiB):\n", base.cluster.gpu.memory_bytes / kGiB);
    for (const auto& [why, n] : out.out_of_memory_reasons) std::printf("  %5zu x %s\n", n, why.c_str());
  }
}

void print_plan_json(const Scenario& base, const planning::PlanOutcome& out, const PlanPrint& p) {
  using namespace planning;
  nlohmann::json j;
  j["scenario"] = base.display_name();
  j["configuration"] = base.configuration();
  j["overrides"] = base.overrides;
  j["gpus"] = p.gpus;
  j["backend"] = p.backend;
  j["metric"] = out.metric;
  j["mfu_definition"] = "model FLOPs at the peak of each op's precision / step_s; mfu: full attention square "
                        "(Megatron-LM), mfu_causal: causal square halved";
  j["global_batch_size"] = out.global_batch;
  j["out_of_memory_reasons"] = out.out_of_memory_reasons;
  j["invalid_reasons"] = out.invalid_reasons;
  j["enumerated"] = out.enumerated;
  j["invalid"] = out.invalid;
  j["out_of_memory"] = out.out_of_memory;
  j["failed"] = out.failed;
  j["relabeled"] = out.relabeled;
  if (out.not_predicted > 0) j["not_predicted"] = out.not_predicted;   // bound below the K-th best
  j["error_band"] = out.error_band;
  j["notes"] = out.notes;
  j["closest_misses"] = nlohmann::json::array();
  for (const PlanMiss& m : out.closest_misses)
    j["closest_misses"].push_back({{"configuration", m.candidate.label()},
                                   {"memory_per_gpu_gib", m.total_bytes / kGiB},
                                   {"short_gib", (m.total_bytes - m.capacity_bytes) / kGiB}});
  j["best"] = nlohmann::json::array();
  for (const auto& e : out.best) {
    nlohmann::json b = to_json(e.result, {"configuration"});
    b["tp"] = e.candidate.tp;
    b["cp"] = e.candidate.cp;
    b["dp"] = e.candidate.dp;
    b["cp_comm_type"] = e.candidate.hyperparallel ? e.candidate.comm_label() : to_string(e.candidate.comm);
    if (e.candidate.hyperparallel) {
      const HyperParallelConfig& h = e.scenario.hyperparallel;
      b["hyperparallel"] = {{"style", to_string(h.style)},
                            {"mode", to_string(h.mode(e.candidate.cp))},
                            {"ulysses_degree", h.ulysses_degree > 0 ? nlohmann::json(h.ulysses_degree) : nlohmann::json()},
                            {"load_balance", h.load_balance}};
    }
    b["hierarchical_context_parallel_sizes"] = e.candidate.hierarchical;
    b["order"] = e.candidate.order;
    b["pp"] = e.candidate.pp;
    b["vpp"] = e.candidate.vpp;
    // Transformer layers of each pipeline stage, and Megatron's uneven-split fields (null: unset).
    const ModelConfig& mc = e.scenario.model;
    b["pipeline_stage_layers"] = stage_layer_counts(mc);
    b["decoder_first_pipeline_num_layers"] =
        mc.decoder_first_pipeline_num_layers ? nlohmann::json(*mc.decoder_first_pipeline_num_layers) : nlohmann::json();
    b["decoder_last_pipeline_num_layers"] =
        mc.decoder_last_pipeline_num_layers ? nlohmann::json(*mc.decoder_last_pipeline_num_layers) : nlohmann::json();
    b["account_for_embedding_in_pipeline_split"] = mc.account_for_embedding_in_pipeline_split;
    b["account_for_loss_in_pipeline_split"] = mc.account_for_loss_in_pipeline_split;
    b["micro_batch_size"] = e.candidate.mbs;
    b["recompute"] = to_string(e.candidate.recompute);
    b["use_distributed_optimizer"] = e.candidate.distributed_optimizer;
    b["sequence_parallel"] = e.candidate.tp > 1;
    b["explanation"] = e.explanation;
    b["same_numbers_orders"] = e.same_numbers_orders;
    b["ties_best"] = e.ties_best;
    b["error_band"] = accuracy::error_band_json(accuracy::error_band_for(e.scenario), e.result.metrics.step_s,
                                                e.result.metrics.tokens_per_s_per_gpu);
    const std::vector<std::string> o = changed_overrides(base, e.scenario);
    b["scenario_overrides"] = o;
    b["megatron_arguments"] = megatron_arguments(e.scenario);
    b["bridge_overrides"] = bridge_overrides(o);
    b["warnings"] = emit_warnings(e.scenario);   // what the Megatron-LM arguments or Bridge overrides cannot say
    j["best"].push_back(b);
  }
  std::cout << j.dump(2) << '\n';
}

bool emit_plan(const Scenario& base, const planning::PlanOutcome& out, const PlanPrint& p, const std::string& dir) {
  using namespace planning;
  if (!make_emit_dir(dir, "plan")) return false;
  int k = 0;
  for (const PlanEntry& e : out.best) {
    const std::string stem = (std::filesystem::path(dir) / ("plan-" + std::to_string(++k))).string();
    const std::vector<std::string> o = changed_overrides(base, e.scenario);
    std::vector<std::string> all = p.overrides;
    all.insert(all.end(), o.begin(), o.end());
    std::string yaml;
    try {
      yaml = scenario_file_text(p.base_path, all, base.name + "-plan-" + std::to_string(k),
                                "hcpsim plan #" + std::to_string(k) + " on " + std::to_string(p.gpus) + " GPUs: " + e.candidate.label());
    } catch (const std::exception& x) {
      std::cerr << "hcpsim plan: --emit: " << x.what() << '\n';
      return false;
    }
    if (!write_layout_files(stem, yaml, o, e.scenario,
                            "pretrain_gpt.py arguments of plan #" + std::to_string(k) + " (" + std::to_string(p.gpus) + " GPUs)",
                            "hcpsim plan: --emit: plan-" + std::to_string(k)))
      return false;
  }
  std::fprintf(stderr, "plan: wrote %d layouts to %s (plan-K.yaml, .overrides, .megatron.sh, .bridge; .warnings where those cannot say everything)\n", k, dir.c_str());
  return true;
}

bool make_emit_dir(const std::string& dir, const std::string& command) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) std::cerr << "hcpsim " << command << ": --emit " << dir << ": " << ec.message() << '\n';
  return !ec;
}

bool write_layout_files(const std::string& stem, const std::string& yaml, const std::vector<std::string>& overrides,
                        const Scenario& s, const std::string& what, const std::string& who) {
  using namespace planning;
  // Settings the Megatron-LM arguments or the Bridge overrides cannot express: in the arguments'
  // file, in STEM.warnings and on stderr.
  const std::vector<std::string> warnings = emit_warnings(s);
  std::string megatron = "# " + what + "\n";
  for (const std::string& w : warnings) {
    megatron += "# warning: " + w + "\n";
    std::fprintf(stderr, "%s: warning: %s\n", who.c_str(), w.c_str());
  }
  std::vector<std::pair<std::string, std::string>> files = {
      {stem + ".yaml", yaml},
      {stem + ".overrides", joined(overrides, "\n") + "\n"},
      {stem + ".megatron.sh", megatron + shell_join(megatron_arguments(s)) + "\n"},
      {stem + ".bridge", joined(bridge_overrides(overrides), "\n") + "\n"}};
  if (!warnings.empty()) files.emplace_back(stem + ".warnings", joined(warnings, "\n") + "\n");
  for (const auto& [path, text] : files) {
    std::ofstream f(path);
    f << text;
    if (!f) {
      std::cerr << who << ": cannot write " << path << '\n';
      return false;
    }
  }
  return true;
}

void explain_nothing_fits(const Scenario& base, const planning::PlanOutcome& out, const planning::PlanOptions& o) {
  using namespace planning;
  const int gpus = o.gpus > 0 ? o.gpus : base.world_size();
  std::cerr << "hcpsim plan: no configuration is valid and fits in GPU memory on " << gpus
            << " GPUs; every tp, cp, comm type, pp, vpp, micro-batch, recomputation and optimizer was tried\n";
  if (!out.closest_misses.empty()) {
    std::cerr << "closest misses (valid, least memory first):\n";
    for (const PlanMiss& m : out.closest_misses)
      std::cerr << "  " << m.candidate.label() << ": " << fixed(m.total_bytes / kGiB, 1) << " GiB of "
                << fixed(m.capacity_bytes / kGiB, 1) << " GiB (" << fixed((m.total_bytes - m.capacity_bytes) / kGiB, 1)
                << " GiB short)\n";
  }
  const auto validator = [](const Scenario& s) { return validate_without_placement(s); };
  for (int f : {2, 4, 8}) {
    if (out.closest_misses.empty() && out.out_of_memory == 0) break;   // nothing valid: more GPUs do not help
    bool fits = false;
    try {
      fits = any_layout_fits(base, gpus * f, o, validator);
    } catch (const std::invalid_argument&) {
      continue;   // not a GPU count of this node size
    }
    if (fits) {
      std::cerr << "what fits: " << gpus * f << " GPUs (--gpus " << gpus * f << "); for the smallest count use --min-gpus --gpus-max "
                << gpus * f << "\n";
      return;
    }
  }
  std::cerr << "what would fit: nothing up to " << gpus * 8 << " GPUs; shorten model.seq_length or the model\n";
}

}  // namespace hcpsim::cli
