// hcpsim command line: subcommands parse arguments and call the libraries.
#include <CLI/CLI.hpp>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "cli/import_command.h"
#include "cli/cli_main.h"

int main(int argc, char** argv) {
  using namespace hcpsim::cli;
  CLI::App app{"hcpsim: simulate, run and explain context-parallel attention (p2p, a2a, all_gather, "
               "a2a+p2p) with Megatron-Core / Transformer Engine semantics"};
  app.footer("Run 'hcpsim COMMAND --help' for a command's options and examples.");
  CliContext ctx = start_program(app, "hcpsim", argc, argv);
  add_validate_command(app, ctx);
  add_layout_command(app, ctx);
  add_graph_command(app, ctx);
  add_verify_command(app, ctx);
  add_simulate_command(app, ctx);
  add_sweep_command(app, ctx);
  add_plan_command(app, ctx);
  add_run_command(app, ctx);
  add_calibrate_command(app, ctx);
  add_compare_command(app, ctx);
  add_accuracy_command(app, ctx);
  add_import_command(app, ctx);
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const auto* sub : app.get_subcommands({})) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "hcpsim: error: unknown command '" << argv[1] << "'; valid commands: " << names
                << "\nRun 'hcpsim --help' for an overview.\n";
      return 2;
    }
  }
  return parse_and_run(app, ctx, "hcpsim", argc, argv);
}
