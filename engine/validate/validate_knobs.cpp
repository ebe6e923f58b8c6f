#include "engine/validate/validate_knobs.h"

#include <string>
#include <utility>
#include <vector>

#include "engine/cost/attention_tables.h"
#include "engine/scenario/gpu_family.h"

namespace hcpsim {
namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

class Knobs {
 public:
  explicit Knobs(const Scenario& s) : s_(s) {}
  bool stated(const std::string& path) const { return s_.locations.count(path) > 0; }
  void add(Severity sev, const std::string& path, std::string msg, std::vector<std::string> hints = {}) {
    const SourceLocation loc = s_.location_of(path);
    if (loc.override_index > 0) msg = "<override " + std::to_string(loc.override_index) + "> " + msg;
    d_.add({sev, path, loc.line, loc.column, std::move(msg), std::move(hints)});
  }
  Diagnostics take() { return std::move(d_); }

 private:
  const Scenario& s_;
  Diagnostics d_;
};

void check_fp8_recipe(const Scenario& s, Knobs& k) {
  const std::string& gpu = s.cluster.gpu.name;
  if (s.model.fp8_recipe != "mxfp8" || is_blackwell_gpu(gpu)) return;
  if (s.fp8_enabled())
    k.add(Severity::Error, "model.fp8_recipe",
          "fp8_recipe 'mxfp8' needs Blackwell tensor cores (MXFP8 block scaling), but GPU '" + gpu + "' is not a Blackwell GPU",
          {"on Hopper use fp8_recipe delayed, tensorwise or blockwise; for MXFP8 use a b200 or gb200 GPU"});
  else if (k.stated("model.fp8_recipe"))
    k.add(Severity::Warning, "model.fp8_recipe", "fp8_recipe 'mxfp8' is ignored: model.fp8 is not set");
}

void check_attention_kernel(const Scenario& s, Knobs& k) {
  const std::string path = "cluster.efficiency.attention_kernel";
  if (!k.stated(path)) return;
  const auto& e = s.cluster.efficiency;
  const std::string family = to_string(e.attention_kernel);
  const std::string table = published_attention_table(s.cluster.gpu.name, e.attention_kernel);
  if (!e.terms.attention_shapes) {
    k.add(Severity::Warning, path,
          "attention_kernel '" + family + "' has no effect: the attention_shapes term is off, so every kernel family "
          "runs at the attention_forward / attention_backward plateaus",
          {"switch cluster.efficiency.model_terms.attention_shapes on, or leave attention_kernel out"});
  } else if (table.empty()) {
    k.add(Severity::Warning, path,
          "attention_kernel '" + family + "' has no effect on GPU '" + s.cluster.gpu.name +
              "': no published attention table covers it (H100/H200/H800 and A100/A800: every family; B200/GB200: cudnn only), "
              "so it runs at the attention_forward / attention_backward plateaus",
          {"set cluster.efficiency.attention_forward / attention_backward to the kernel's measured fraction of peak, "
           "or give a calibration file (hcpsim calibrate)"});
  } else if (e.attention_kernel != AttentionKernel::FA2 && starts_with(table, "FlashAttention-2 paper")) {
    k.add(Severity::Warning, path,
          "attention_kernel '" + family + "' is priced as fa2 on GPU '" + s.cluster.gpu.name +
              "': the only published table for it is FlashAttention-2's (A100 has no FlashAttention-3)",
          {"set cluster.efficiency.attention_forward / attention_backward to the kernel's measured fraction of peak"});
  }
}

void check_topology(const Scenario& s, Knobs& k) {
  const auto& c = s.cluster;
  if (c.topology == Topology::Star && c.oversubscription > 1.0) {
    k.add(Severity::Error, "cluster.inter_node.oversubscription",
          "oversubscription " + std::to_string(c.oversubscription) +
              " needs a fat-tree: a star is one switch, with no upper tier to oversubscribe",
          {"set cluster.inter_node.topology: fat-tree, or oversubscription: 1"});
    return;
  }
  if (!k.stated("cluster.inter_node.topology")) return;
  if (c.nodes < 2) {
    k.add(Severity::Warning, "cluster.inter_node.topology",
          "topology has no effect on one node: no traffic crosses the fabric");
    return;
  }
  if (s.simulation.backend == "analytic") {
    k.add(Severity::Warning, "cluster.inter_node.topology",
          "the analytic backend does not model the fabric's topology: every inter-node route is NIC -> fabric -> NIC, "
          "each NIC limited to its share of the oversubscribed uplink, whatever the topology",
          {"the simgrid backend builds the fabric (docs/scenario.md \"Fields the model cannot use\")"});
  } else if (c.topology == Topology::Star) {
    k.add(Severity::Warning, "cluster.inter_node.topology",
          "topology 'star' is one non-blocking switch: its routes and bandwidths are those of a fat-tree with "
          "oversubscription 1, and so is the prediction");
  }
}

}  // namespace

Diagnostics validate_knobs(const Scenario& s) {
  Knobs k(s);
  check_fp8_recipe(s, k);
  check_attention_kernel(s, k);
  check_topology(s, k);
  return k.take();
}

}  // namespace hcpsim
