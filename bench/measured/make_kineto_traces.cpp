// make_kineto_traces PREDICTED.json OUT_DIR [--steps N] [--layers N] [--host-ops N]
//                    [--scale KIND=FACTOR]... [--no-distributed-info]
// Writes one Megatron-shaped PyTorch profiler trace per rank of an hcpsim trace (tests/support/
// kineto_synth.h): for the worked example in docs/validation.md and bench/measured/trace_memory.sh.
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

#include "tests/support/kineto_synth.h"

namespace {

int usage(const std::string& why) {
  std::cerr << "make_kineto_traces: error: " << why
            << "\nusage: make_kineto_traces PREDICTED.json OUT_DIR [--steps N] [--layers N] [--host-ops N] "
               "[--scale KIND=FACTOR]... [--no-distributed-info]\n";
  return 2;
}

bool positive_int(const std::string& s, int& out) {
  char* end = nullptr;
  const long v = std::strtol(s.c_str(), &end, 10);
  if (end == s.c_str() || *end != '\0' || v < 0 || v > 1000000) return false;
  out = static_cast<int>(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) return usage("need PREDICTED.json and OUT_DIR");
  hcpsim::testing::KinetoSynthOptions o;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const std::string v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--no-distributed-info") {
      o.omit_distributed_info = true;
      continue;
    }
    if (i + 1 >= argc) return usage(a + " needs a value");
    ++i;
    if (a == "--steps" && positive_int(v, o.steps) && o.steps > 0) continue;
    if (a == "--layers" && positive_int(v, o.layers) && o.layers > 0) continue;
    if (a == "--host-ops" && positive_int(v, o.host_ops_per_kernel)) continue;
    if (a == "--scale") {
      const auto eq = v.find('=');
      hcpsim::TaskKind k{};
      if (eq == std::string::npos || !hcpsim::parse_task_kind(v.substr(0, eq), k))
        return usage("--scale " + v + ": expected KIND=FACTOR with a task kind (attention_forward, send_recv, ...)");
      char* end = nullptr;
      const double f = std::strtod(v.c_str() + eq + 1, &end);
      if (*end != '\0' || !(f > 0)) return usage("--scale " + v + ": FACTOR must be a number > 0");
      o.time_scale[k] = f;
      continue;
    }
    return usage("bad option or value: " + a + " " + v);
  }
  try {
    const hcpsim::Trace t = hcpsim::read_chrome_trace(argv[1]);
    std::filesystem::create_directories(argv[2]);
    const double bytes = hcpsim::testing::write_kineto_traces(t, argv[2], o);
    std::cout << "wrote " << bytes / 1e6 << " MB of traces into " << argv[2] << '\n';
  } catch (const std::exception& e) {
    std::cerr << "make_kineto_traces: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
