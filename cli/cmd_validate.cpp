// hcpsim validate FILE [k=v...]: load, check every rule, print diagnostics; exit 0 valid, 1 invalid.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/scenario_args.h"
#include "cli/verbosity.h"
#include "engine/app/help_footer.h"
#include "engine/planning/memory_fit.h"

namespace hcpsim::cli {

void add_validate_command(CLI::App& app, CliContext& ctx) {
  auto args = std::make_shared<ScenarioArgs>();
  auto* cmd = app.add_subcommand("validate", "check a scenario against Megatron-Core / TE / Bridge rules");
  add_scenario_args(*cmd, *args);
  cmd->footer(app::format_help_footer(
      {.before = "Diagnostics go to stderr as FILE:LINE:COL: error: field.path: message (+ hint lines).\n"
                 "Exit status: 0 valid (warnings allowed), 1 invalid, 2 usage error. -q prints nothing on success.",
       .examples = {{{"hcpsim validate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml"}},
                    {{"hcpsim validate scenarios/llama3-8b-128k-dgx-h100-a2a.yaml model.context_parallel_size=4 -q"}},
                    {{"hcpsim validate scenarios/llama3-70b-128k-dgx-h100-hcp.yaml model.cp_comm_type=a2a+p2p",
                       "\"model.hierarchical_context_parallel_sizes=[2,8]\""}}}}));
  run_with_scenario(*cmd, args, ctx.exit_code, [args](const Scenario& s) {
    // A valid job that does not fit in GPU memory: a warning (the rules hold), by how much, and the
    // layouts on the same GPUs that would fit.
    const MemoryEstimate m = estimate_memory(s);
    if (!m.fits) {
      const auto lines = planning::memory_warning(s, m, planning::memory_fixes(s, {}));
      std::cerr << args->file << ": warning: memory: " << lines.front() << '\n';
      for (std::size_t i = 1; i < lines.size(); ++i) std::cerr << "  hint: " << lines[i] << '\n';
    }
    if (!quiet())
      std::cout << args->file << ": valid: " << s.display_name() << " (world " << s.world_size() << ", tp " << s.tp()
                << ", cp " << s.cp() << ", dp " << s.dp() << ", pp " << s.pp() << ")\n";
    return 0;
  }, /*check_backend=*/true);
}

}  // namespace hcpsim::cli
