#pragma once
// `hcpsim import`: its own header, so that adding it does not touch commands.h.
#include "cli/commands.h"

namespace hcpsim::cli {

void add_import_command(CLI::App& app, CliContext& ctx);

}  // namespace hcpsim::cli
