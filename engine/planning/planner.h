#pragma once
// Capacity planner: for a scenario's model, sequence length, global batch and cluster, enumerate
// every (tp, cp, cp_comm_type, hierarchical split, pp, vpp, dp, order, micro-batch size,
// recomputation, distributed optimizer) on N GPUs, with sequence parallelism whenever tp > 1 (as
// Megatron-Bridge does), drop what validation rejects and what does not fit in GPU memory, predict
// the rest, and return the best K with a sentence each. On request (PlanSearch::hyperparallel, or a
// base scenario with a hyperparallel: section) MindSpore HyperParallel's CP modes are candidates too,
// ranked together with Megatron's (docs/planning.md "HyperParallel candidates").
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/diagnostics.h"
#include "engine/memory/memory_model.h"
#include "engine/planning/point_distribution.h"
#include "engine/planning/sweep_result.h"
#include "engine/scenario/scenario.h"

namespace hcpsim::planning {

struct PlanCandidate {
  int tp = 1;
  int cp = 1;
  int dp = 1;
  CpCommType comm{};                      // value-initialized: p2p, the first schedule
  std::vector<int> hierarchical = {};     // [A, P] for a2a+p2p, else empty
  std::string order = "tp-cp-ep-dp-pp";
  int pp = 1;
  int vpp = 1;
  // Megatron's uneven pipeline split (model.decoder_first/last_pipeline_num_layers; 0 = unset), or the
  // embedding / loss counted as a layer of the split; all unset: the even split.
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  bool embedding_in_split = false;
  bool loss_in_split = false;
  int mbs = 1;                            // micro_batch_size
  Recompute recompute = Recompute::None;
  bool distributed_optimizer = true;
  // HyperParallel candidate: its CP mode replaces comm / hierarchical (docs/hyperparallel.md).
  bool hyperparallel = false;
  HpStyle hp_style = HpStyle::ContextParallel;
  int ulysses_degree = 0;                 // 0 = unset (pure Ulysses), 1 = pure Colossal, 1 < u < cp: hybrid
  bool load_balance = false;              // head-tail load balance (ulysses_degree 1)
  // "tp=2 cp=16 a2a+p2p [4,4] pp=4 vpp=2 dp=1 mbs=1 recompute=full dist-opt" (order when not default);
  // HyperParallel: "tp=1 cp=16 dp=1 hp hybrid u=8", "... hp async ulysses", "... hp colossal lb"
  std::string label() const;
  // The point_eval comm_type column: "p2p", "a2a+p2p", "hp-hybrid-u8", "hp-colossal-u1-lb", "none".
  std::string comm_label() const;
};

// Which axes beyond tp, cp, comm type and split are searched; the others keep the scenario's values.
struct PlanSearch {
  bool pipeline = true;                   // pp over the divisors of num_layers, and vpp
  bool micro_batch = true;                // micro_batch_size 1, 2, 4 (where the global batch divides)
  bool recompute = true;                  // none, selective, full (unless PlanOptions::memory fixes it; training only)
  bool distributed_optimizer = true;      // on and off (training only)
  int max_vpp = 8;                        // largest virtual pipeline size tried
  // HyperParallel's modes as candidates beside Megatron's: for every cp > 1, ulysses_degree unset
  // (pure Ulysses), 1 (pure Colossal, also with load_balance) and every divisor 1 < u < cp (hybrid), in
  // the styles ContextParallel and AsyncContextParallel. A base scenario with a hyperparallel: section
  // turns this on by itself and keeps its style (DSA: Colossal only, and no Megatron candidates with
  // cp > 1, which would price dense attention).
  bool hyperparallel = false;
  // Only tp, cp, comm type, split and order (the scenario's pp, batch, recompute, optimizer).
  static PlanSearch layouts_only() { return {false, false, false, false, 1, false}; }
};

struct PlanOptions {
  int gpus = 0;                           // 0 = the scenario's world size
  int top = 5;                            // how many to return
  int jobs = 1;                           // > 1: predict in that many worker processes
  int threads = 1;                        // > 1: check and predict on that many threads (the validator
                                          // and the predictor must then be thread-safe)
  std::string metric;                     // ranking metric (metric_names()); "" = tokens_per_s_per_gpu
                                          // for training, ttft_s for prefill
  MemoryOptions memory;                   // memory.recompute set: only that recomputation is searched
  PlanSearch search;
  // How many of the valid layouts that do not fit are kept in PlanOutcome::closest_misses (least
  // memory first), and whether they are predicted too (PlanMiss::result), to show them beside the
  // fitting ones.
  std::size_t misses = 3;
  bool predict_misses = false;
  // Cooperating processes (MPI ranks) that share the work: every rank enumerates the same list,
  // validates and checks the memory of every size-th candidate and sends its verdicts to rank 0,
  // which tells every rank which candidates are kept; then whole model-parallel slices go to the
  // ranks in turn (each slice's backend run happens on one rank) and rank 0 gathers the predictions
  // and ranks them. nullptr or one rank: this process does everything. The ranks other than 0
  // return an outcome without `best` and without counts.
  PointDistribution* distribution = nullptr;
  // Leaving out slices that cannot place (single process, threads; docs/planning.md): with bounds
  // on the step time the predictor gives (true lower bounds, e.g. planner_bound.h's for the analytic
  // backend), the slices whose estimated layer graph has at least `prune_above_tasks` tasks are
  // predicted after the others, in rounds of growing size, and left out when every candidate of
  // theirs is bounded below the K-th best listed so far (counted in PlanOutcome::not_predicted);
  // in every round, small slices included, a candidate that only reuses its slice's layer times is
  // dropped alone when its own bound cannot reach the K-th best.
  // prune false: every slice runs.
  // step_lower_bounds(members, layer_run): seconds for each candidate of one slice (0: none), whose
  // layer times are those of the graph of `layer_run`, the slice's candidate the predictor runs
  // (the others reuse its layer times); asked once per slice.
  bool prune = true;
  std::function<std::vector<double>(const std::vector<Scenario>& members, const Scenario& layer_run)> step_lower_bounds;
  double prune_above_tasks = 1e5;
  // Called now and then with (candidates checked, candidates in all, predicted so far).
  std::function<void(std::size_t, std::size_t, std::size_t)> progress;
};

struct PlanEntry {
  PlanCandidate candidate;
  Scenario scenario;                      // base with the candidate applied
  PointResult result;                     // predicted metrics
  MemoryEstimate memory;
  std::string explanation;                // one sentence
  // The dist.order values of other layouts with exactly the same predicted numbers (a relabeling of
  // the same groups' work): listed once, here.
  std::vector<std::string> same_numbers_orders;
  // Its predicted range and the best entry's overlap within the model's error band for this kind of
  // job (error_band/error_band.h): the data cannot tell the two apart. False for the best itself.
  bool ties_best = false;
};

// A valid layout that does not fit: how much memory it needs.
struct PlanMiss {
  PlanCandidate candidate;
  double total_bytes = 0;
  double capacity_bytes = 0;
  // With PlanOptions::predict_misses: its predicted metrics (memory_per_gpu_bytes = total_bytes,
  // fits false; status Error when the predictor threw).
  std::optional<PointResult> result;
};

struct PlanOutcome {
  std::vector<PlanEntry> best;            // at most top, best first
  std::size_t enumerated = 0;
  std::size_t invalid = 0;                // rejected by validation
  std::size_t out_of_memory = 0;          // valid but above GPU memory
  std::size_t failed = 0;                 // the predictor threw
  std::size_t relabeled = 0;              // predicted, same numbers as a listed layout but for dist.order
  std::size_t not_predicted = 0;          // fitting, not predicted: their slice's bound is below the K-th best
  std::string metric;                     // the ranking metric used
  int global_batch = 0;                   // sequences per step, the same for every candidate
  std::map<std::string, std::size_t> invalid_reasons;   // first error message -> count
  std::map<std::string, std::size_t> out_of_memory_reasons;   // largest memory item -> count
  std::vector<std::string> notes;         // facts about the whole space ("pure a2a caps at cp 4 ...")
  std::vector<PlanMiss> closest_misses;   // the valid layouts nearest to fitting, least memory first (at most PlanOptions::misses)
  std::string error_band;                 // the band ties were judged by ("" = none for this job or metric)
};

// The divisors of n, ascending.
std::vector<int> divisors(int n);

using ScenarioValidator = std::function<Diagnostics(const Scenario&)>;
// Predicts one valid, fitting scenario; may throw (the candidate is then counted as failed).
using ScenarioPredictor = std::function<PointMetrics(const Scenario&)>;
// The key that groups candidates sharing one backend run (engine/app/point_eval.h's layer_cache_key); under a
// distribution each group is predicted on one rank. nullptr: every candidate is its own group.
using SliceKey = std::function<std::string(const Scenario&)>;

// Every candidate on `gpus` GPUs (tp divides gpus_per_node; cp*tp*pp divides gpus; for a2a+p2p
// every split with 2 <= A < cp; the tp-cp-ep-pp-dp order only when pp > 1 and dp > 1, the only
// case where it gives other groups (HyperParallel candidates: its mesh's order tp-cp-ep-dp-pp only); pp divides num_layers, vpp > 1 only with pp > 1 and
// num_layers % (pp*vpp) == 0; micro-batch sizes that divide the global batch per DP replica).
// Throws std::invalid_argument when gpus is not a multiple of gpus_per_node (or a divisor of it).
std::vector<PlanCandidate> enumerate_candidates(const Scenario& base, int gpus,
                                                const PlanSearch& search = PlanSearch::layouts_only(),
                                                const MemoryOptions& memory = {});

// The base scenario with a candidate applied (cluster resized to `gpus`, the base's global batch
// kept, sequence parallelism on when tp > 1; a Megatron candidate drops the base's hyperparallel:
// section, a HyperParallel candidate sets it).
Scenario apply_candidate(const Scenario& base, const PlanCandidate& c, int gpus);

PlanOutcome plan(const Scenario& base, const PlanOptions& options, const ScenarioValidator& validate,
                 const ScenarioPredictor& predict, const SliceKey& slice_key = nullptr);

// The one-sentence explanation of an entry relative to the best one (`best` may be the entry itself).
std::string explain(const PlanEntry& e, const PlanEntry& best, const std::string& metric);

}  // namespace hcpsim::planning
