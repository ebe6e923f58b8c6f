// hcpsim plan — not implemented yet (placeholder until its issue lands).
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"

namespace hcpsim::cli {

void add_plan_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("plan", "(not implemented yet)");
  cmd->allow_extras();
  cmd->callback([&ctx]() {
    std::cerr << "hcpsim plan: not implemented yet\n";
    ctx.exit_code = 1;
  });
}

}  // namespace hcpsim::cli
