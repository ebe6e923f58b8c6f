// hcpsim import megatron [--preset P] --nodes N [-o FILE] -- ARGS...: a Megatron-LM pretrain_gpt.py
// command line as a scenario (engine/planning/megatron_import.h).
#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/arg_checks.h"
#include "cli/commands.h"
#include "cli/import_command.h"
#include "engine/app/help_footer.h"
#include "engine/planning/megatron_import.h"
#include "engine/scenario/loader.h"
#include "engine/validate/validate.h"

namespace hcpsim::cli {
namespace {

struct ImportArgs {
  planning::ImportCluster cluster;
  std::string out;
  std::vector<std::string> args;
};

int run_import(const ImportArgs& a) {
  planning::MegatronImport im;
  try {
    im = planning::import_megatron(a.args, a.cluster);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hcpsim import megatron: " << e.what() << '\n';
    return 2;
  }
  for (const std::string& w : im.warnings) std::cerr << "hcpsim import megatron: warning: " << w << '\n';
  const std::string name = a.out.empty() ? "<imported>" : a.out;
  int rc = 0;   // 1 when the scenario does not validate (it is still written, to be edited)
  try {
    Diagnostics warnings;
    const Scenario s = load_scenario_string(im.yaml, {}, name, &warnings);
    const Diagnostics d = validate(s);
    if (!warnings.empty()) std::cerr << format_diagnostics(warnings, name);
    if (!d.empty()) std::cerr << format_diagnostics(d, name);
    if (d.has_errors()) rc = 1;
  } catch (const ScenarioError& e) {
    std::cerr << format_diagnostics(e.diagnostics(), e.file());
    return 1;
  }
  if (a.out.empty()) {
    std::cout << im.yaml;
    return rc;
  }
  std::ofstream f(a.out);
  f << im.yaml;
  if (!f) {
    std::cerr << "hcpsim import megatron: cannot write " << a.out << '\n';
    return 1;
  }
  return rc;
}

}  // namespace

void add_import_command(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("import", "turn another tool's job description into a scenario");
  cmd->require_subcommand(1);
  cmd->footer(app::format_help_footer(
      {.before = "Formats: megatron (a Megatron-LM pretrain_gpt.py command line); `hcpsim import megatron --help` has its options.",
       .examples = {{{"hcpsim import megatron --nodes 8 -- --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672",
                      "--num-attention-heads 64 --group-query-attention --num-query-groups 8 --seq-length 65536",
                      "--tensor-model-parallel-size 8 --context-parallel-size 4 --pipeline-model-parallel-size 2",
                      "--sequence-parallel --micro-batch-size 1 --global-batch-size 64 --bf16 --swiglu"}}}}));
  auto* meg = cmd->add_subcommand("megatron", "a Megatron-LM pretrain_gpt.py command line (after --) as a scenario");
  auto args = std::make_shared<ImportArgs>();
  meg->add_option("--preset", args->cluster.preset, "cluster preset (default dgx-h100)");
  meg->add_option("--nodes", args->cluster.nodes, "number of nodes the job runs on (required)")->required()->check(int_range(1, 1 << 20));
  meg->add_option("--gpus-per-node", args->cluster.gpus_per_node, "GPUs per node (default: the preset's)")
      ->check(int_range(1, 1024));
  meg->add_option("--name", args->cluster.name, "the scenario's name (default imported)");
  meg->add_option("-o,--out", args->out, "write the scenario here (default: standard output)");
  meg->add_option("ARGS", args->args, "pretrain_gpt.py arguments, after --");
  meg->footer(app::format_help_footer(
      {.examples = {{{"hcpsim import megatron --nodes 8 -- --num-layers 80 --hidden-size 8192 --ffn-hidden-size 28672",
                      "--num-attention-heads 64 --group-query-attention --num-query-groups 8 --seq-length 65536",
                      "--tensor-model-parallel-size 8 --context-parallel-size 4 --pipeline-model-parallel-size 2",
                      "--sequence-parallel --micro-batch-size 1 --global-batch-size 64 --bf16 --swiglu"}}},
       .after = "Arguments hcpsim does not model are named in a warning and ignored; Megatron's defaults apply to\n"
                "the ones not given (no distributed optimizer, tied embeddings, no overlap). Exit 1 when the scenario\n"
                "does not load, 2 for a malformed argument."}));
  meg->callback([args, &ctx]() { ctx.exit_code = run_import(*args); });
}

}  // namespace hcpsim::cli
