// hcpsim verify FILE [k=v...]: run the scenario's schedule (shrunk to CPU size) on the reference
// executor and compare O, dQ, dK, dV with dense attention. Exit 0 only when exact.
#include <CLI/CLI.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "engine/app/help_footer.h"
#include "engine/reference/verify.h"
#include "engine/schedule/schedule_descriptor.h"

namespace hcpsim::cli {

namespace {

struct VerifyArgs {
  ScenarioArgs scenario;
  std::string format = "text";
  bool use_float = false;
  bool pitfall = false;
  std::uint64_t seed = 1;
  int workers = 1;
};

bool needs_pitfall(const Scenario& s) {
  if (!s.model.hierarchical_context_parallel_sizes.empty()) return false;
  return schedule::any_layer(s, [](const schedule::ScheduleDescriptor& d) { return d.hierarchical(); });
}

}  // namespace

void add_verify_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<VerifyArgs>();
  auto* cmd = app.add_subcommand("verify", "Prove a scenario's schedule exact on the CPU reference executor");
  add_scenario_args(*cmd, args->scenario);
  cmd->add_option("--format", args->format, "output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--float", args->use_float, "single precision (tolerance 1e-4 instead of 1e-5)");
  cmd->add_flag("--pitfall", args->pitfall, "run the silent-disable pitfall graph (docs/schedules.md) instead");
  cmd->add_option("--seed", args->seed, "data seed");
  cmd->add_option("--workers", args->workers, "CPU threads (1 = seeded random task order)")->check(CLI::PositiveNumber);
  cmd->footer(app::format_help_footer(
      {.before = "Keeps tp, cp, the hierarchical split, the mask, the head ratio and the per-layer comm types;\n"
                 "shrinks S to 2*cp*4 tokens, head dim 8 and the heads to the fewest the a2a degrees allow.\n"
                 "--pitfall builds the silent-disable pitfall graph (each rank attends to its own chunk, docs/schedules.md);\n"
                 "it is reported WRONG (exit 1).",
       .examples = {{{"hcpsim verify scenarios/llama3-70b-128k-dgx-h100-hcp.yaml"}},
                    {{"hcpsim verify scenarios/llama3-8b-128k-dgx-h100-mixed.yaml model.attn_mask_type=no_mask --format json"}}}}));
  run_with_scenario(*cmd, std::shared_ptr<ScenarioArgs>(args, &args->scenario), ctx.exit_code,
                    [args](const Scenario& original) {
    const bool pitfall = args->pitfall || needs_pitfall(original);
    Scenario s = original;
    if (pitfall && needs_pitfall(original))   // give the rules a consistent (unused) layout
      for (auto& t : s.model.cp_comm_type)
        if (schedule::schedule_of(t).hierarchical()) t = schedule::flat_ring_schedule().kind;
    s = reference::shrink_for_cpu(s);
    reference::VerifyOptions opt;
    opt.exec.use_float = args->use_float;
    opt.exec.seed = args->seed;
    opt.exec.workers = args->workers;
    opt.silent_disable_pitfall = pitfall;
    const reference::VerifyResult r = reference::verify_scenario(s, opt);
    if (args->format == "json") {
      nlohmann::json j;
      j["scenario"] = original.display_name();
      j["configuration"] = original.configuration();
      j["overrides"] = original.overrides;
      j["max_rel_error"] = {{"out", r.out}, {"dq", r.dq}, {"dk", r.dk}, {"dv", r.dv}};
      j["tolerance"] = r.tolerance;
      j["ok"] = r.ok;
      j["tasks"] = r.tasks;
      j["layers"] = r.layers;
      j["silent_disable_pitfall"] = pitfall;
      j["shrunk"] = {{"tp", s.tp()},
                     {"cp", s.cp()},
                     {"hierarchical_context_parallel_sizes", s.model.hierarchical_context_parallel_sizes},
                     {"seq_length", s.model.seq_length},
                     {"num_attention_heads", s.model.num_attention_heads},
                     {"num_query_groups", s.model.num_query_groups},
                     {"kv_channels", s.model.kv_channels},
                     {"micro_batch_size", s.train.micro_batch_size}};
      if (!r.detail.empty()) j["detail"] = r.detail;
      std::cout << j.dump(2) << '\n';
    } else {
      std::cout << "verify " << original.display_name() << ": tp " << s.tp() << ", cp " << s.cp();
      if (!s.model.hierarchical_context_parallel_sizes.empty())
        std::cout << " [" << s.model.hierarchical_context_parallel_sizes[0] << ","
                  << s.model.hierarchical_context_parallel_sizes[1] << "]";
      std::cout << ", S " << s.model.seq_length << ", heads " << s.model.num_attention_heads << "/"
                << s.model.num_query_groups << ", d " << s.model.kv_channels << ", " << r.layers << " layer(s), "
                << r.tasks << " tasks, " << (args->use_float ? "float" : "double") << '\n';
      if (pitfall)
        std::cout << "  silent-disable pitfall: a2a+p2p without hierarchical sizes, every rank attends "
                     "only to its own chunk\n";
      std::cout << "  max relative error  out " << r.out << "  dq " << r.dq << "  dk " << r.dk << "  dv " << r.dv
                << "  (tolerance " << r.tolerance << ")\n";
      if (!r.detail.empty()) std::cout << "  " << r.detail << '\n';
      std::cout << (r.ok ? "OK: the task graph computes exact attention and gradients\n"
                         : "WRONG: the task graph does not compute exact attention\n");
    }
    return r.ok ? 0 : 1;
  });
}

}  // namespace hcpsim::cli
