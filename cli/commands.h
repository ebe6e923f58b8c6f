#pragma once
// One file per subcommand (cmd_<name>.cpp); each adds itself to the CLI11 app. The command bodies
// only parse arguments and call engine/sim/kernels; they return the process exit code through
// CliContext::exit_code (0 ok, 1 invalid input, failed check or write error, 2 usage error; main
// turns an InternalError into 3).
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace hcpsim::cli {

struct CliContext {
  int exit_code = 0;
  const char* argv0 = "";
  int argc = 0;              // the whole command line (run hands it to hcpsim-mpi)
  char** argv = nullptr;
};

void add_validate_command(CLI::App& app, CliContext& ctx);
void add_layout_command(CLI::App& app, CliContext& ctx);
void add_graph_command(CLI::App& app, CliContext& ctx);
void add_verify_command(CLI::App& app, CliContext& ctx);
void add_simulate_command(CLI::App& app, CliContext& ctx);
void add_sweep_command(CLI::App& app, CliContext& ctx);
void add_plan_command(CLI::App& app, CliContext& ctx);
void add_run_command(CLI::App& app, CliContext& ctx);
void add_calibrate_command(CLI::App& app, CliContext& ctx);
void add_compare_command(CLI::App& app, CliContext& ctx);
void add_accuracy_command(CLI::App& app, CliContext& ctx);

}  // namespace hcpsim::cli
