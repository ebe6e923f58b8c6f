#include "cli/calibrate_from_trace.h"

#include <fstream>
#include <iostream>

#include "cli/scenario_args.h"
#include "engine/measured/measured_input.h"
#include "engine/measured/trace_fit.h"

namespace hcpsim::cli {

int calibrate_from_trace(const FromTraceRequest& r) {
  if (r.scenario.empty()) {
    std::cerr << "hcpsim calibrate: error: --from-trace needs the scenario FILE that was run (the shapes and bytes "
                 "of its tasks are what the kernels are matched to)\n";
    return 2;
  }
  int code = 0;
  const auto scenario = load_for_command(r.scenario, r.overrides, code);
  if (!scenario) return code;
  TraceFitResult fit;
  try {
    const KernelClassifier classifier(r.kernel_rules.empty() ? std::vector<KernelRule>{}
                                                             : load_kernel_rules_file(r.kernel_rules));
    const MeasuredRun run = read_measured_run(r.traces, classifier);
    fit = fit_calibration_from_trace(*scenario, run);
  } catch (const std::exception& e) {
    std::cerr << "hcpsim calibrate: error: " << e.what() << '\n';
    return 1;
  }
  write_fit_summary(fit, r.out.empty() ? std::cerr : std::cout);
  if (fit.tables.empty()) return 1;
  const std::string yaml = calibration_to_yaml(fit.calibration);
  if (r.out.empty()) {
    std::cout << yaml;
    return 0;
  }
  std::ofstream f(r.out);
  f << yaml;
  f.close();
  if (!f) {
    std::cerr << "hcpsim calibrate: error: cannot write " << r.out << '\n';
    return 1;
  }
  std::cout << "wrote " << r.out << " (use it with cluster.calibration=" << r.out << ")\n";
  return 0;
}

}  // namespace hcpsim::cli
