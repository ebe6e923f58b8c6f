#include "scenario_generator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "engine/validate/field_ranges.h"

namespace hcpsim::test {

namespace {

const FieldRange& range_of(const std::string& path) {
  for (const auto& r : field_ranges())
    if (r.path == path) return r;
  throw std::logic_error("no range for " + path);
}

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

double ScenarioGenerator::log_uniform(double lo, double hi) {
  const int end = std::uniform_int_distribution<int>(0, 7)(rng_);
  if (end == 0) return lo;
  if (end == 1) return hi;
  return std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng_));
}

long long ScenarioGenerator::log_int(long long lo, long long hi) {
  if (hi <= lo) return lo;
  const double v = log_uniform(static_cast<double>(lo), static_cast<double>(hi));
  return std::clamp(static_cast<long long>(std::llround(v)), lo, hi);
}

int ScenarioGenerator::pick_divisor(int n) {
  std::vector<int> d;
  for (int i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d[std::uniform_int_distribution<std::size_t>(0, d.size() - 1)(rng_)];
}

std::string ScenarioGenerator::quantity(const std::string& path, const char* unit, double unit_factor) {
  const FieldRange& r = range_of(path);
  // Written in a unit whose factor is unit_factor; the value is clamped back into the SI range so
  // that decimal rounding cannot push it a hair outside.
  const double si = std::clamp(log_uniform(r.lo, r.hi), r.lo, r.hi);
  double shown = si / unit_factor;
  while (shown * unit_factor < r.lo) shown = std::nextafter(shown, INFINITY);
  while (shown * unit_factor > r.hi) shown = std::nextafter(shown, 0.0);
  return num(shown) + " " + unit;
}

std::string ScenarioGenerator::next() {
  const int gpn = std::vector<int>{1, 2, 4, 8}[std::uniform_int_distribution<int>(0, 3)(rng_)];
  const int nodes = std::uniform_int_distribution<int>(1, 4)(rng_);
  const int world = gpn * nodes;
  const int tp = pick_divisor(gpn);
  const int pp = coin(0.8) ? 1 : pick_divisor(world / tp);
  const int cp = pick_divisor(world / tp / pp);
  const char* comms[] = {"p2p", "a2a", "all_gather", "a2a+p2p"};
  const std::string comm = comms[std::uniform_int_distribution<int>(0, 3)(rng_)];
  const long long heads_unit = static_cast<long long>(tp) * cp;
  const long long heads = heads_unit * log_int(1, 16384 / heads_unit);
  long long groups = heads;
  if (coin()) {   // GQA: a divisor of heads that still splits over tp and cp
    for (long long g = heads / 2; g >= heads_unit; --g)
      if (heads % g == 0 && g % heads_unit == 0 && coin(0.3)) {
        groups = g;
        break;
      }
  }
  const long long num_layers = log_int(1, 4096);
  const long long sim_layers = log_int(1, std::min<long long>(num_layers, 3));
  const long long seq = 2LL * cp * log_int(1, 1073741824LL / (2LL * cp));

  std::string y = "name: generated\nmodel:\n";
  y += "  num_layers: " + std::to_string(num_layers) + "\n";
  y += "  hidden_size: " + std::to_string(log_int(1, 1048576)) + "\n";
  y += "  kv_channels: " + std::to_string(log_int(1, 16384)) + "\n";
  if (coin()) y += "  ffn_hidden_size: " + std::to_string(log_int(1, 4194304)) + "\n";
  y += "  num_attention_heads: " + std::to_string(heads) + "\n";
  y += "  num_query_groups: " + std::to_string(groups) + "\n";
  y += "  seq_length: " + std::to_string(seq) + "\n";
  y += std::string("  attn_mask_type: ") + (coin() ? "causal" : "no_mask") + "\n";
  y += std::string("  params_dtype: ") + (coin() ? "bf16" : "fp16") + "\n";
  y += "  tensor_model_parallel_size: " + std::to_string(tp) + "\n";
  y += "  pipeline_model_parallel_size: " + std::to_string(pp) + "\n";
  y += "  context_parallel_size: " + std::to_string(cp) + "\n";
  y += "  cp_comm_type: " + comm + "\n";
  if (comm == "a2a+p2p") {
    const int a = pick_divisor(cp);
    y += "  hierarchical_context_parallel_sizes: [" + std::to_string(a) + ", " + std::to_string(cp / a) + "]\n";
  }
  y += std::string("  sequence_parallel: ") + (coin() ? "true" : "false") + "\n";
  y += "train: {micro_batch_size: " + std::to_string(log_int(1, 65536)) + "}\n";
  y += std::string("dist: {order: ") + (coin() ? "tp-cp-ep-dp-pp" : "tp-cp-ep-pp-dp") + "}\n";
  const long long nics = log_int(1, 64);
  y += "cluster:\n";
  y += "  nodes: " + std::to_string(nodes) + "\n  gpus_per_node: " + std::to_string(gpn) + "\n";
  y += "  gpu: {name: generated-gpu, bf16_tflops: " + quantity("cluster.gpu.bf16_tflops", "GFLOPS", 1e9) +
       ", hbm_bandwidth: " + quantity("cluster.gpu.hbm_bandwidth", "MB/s", 1e6) +
       ", memory: " + quantity("cluster.gpu.memory", "MB", 1e6) + "}\n";
  y += "  intra_node: {bandwidth: " + quantity("cluster.intra_node.bandwidth", "MB/s", 1e6) +
       ", latency: " + quantity("cluster.intra_node.latency", "s", 1) + "}\n";
  y += "  inter_node: {nic_bandwidth: " + quantity("cluster.inter_node.nic_bandwidth", "MB/s", 1e6) +
       ", nics_per_node: " + std::to_string(nics) + ", latency: " + quantity("cluster.inter_node.latency", "s", 1) +
       ", topology: " + (coin() ? "fat-tree" : "star") + ", oversubscription: " + num(log_uniform(1, 1e6)) + "}\n";
  y += "  efficiency: {";
  const char* effs[] = {"attention_forward", "attention_backward", "gemm", "memory", "intra_node_link", "inter_node_link"};
  for (int i = 0; i < 6; ++i) y += std::string(i ? ", " : "") + effs[i] + ": " + num(log_uniform(1e-3, 1));
  y += "}\n";
  const int nfaults = std::uniform_int_distribution<int>(0, 3)(rng_);
  if (nfaults > 0) {
    y += "  faults:\n";
    for (int f = 0; f < nfaults; ++f) {
      const int kind = std::uniform_int_distribution<int>(0, 2)(rng_);
      const int node = std::uniform_int_distribution<int>(0, nodes - 1)(rng_);
      const long long nic = std::uniform_int_distribution<long long>(0, nics - 1)(rng_);
      if (kind == 0)
        y += "    - {rank: " + std::to_string(std::uniform_int_distribution<int>(0, world - 1)(rng_)) +
             ", slowdown: " + num(log_uniform(1, 1000)) + "}\n";
      else if (kind == 1)
        y += "    - {node: " + std::to_string(node) + ", nic: " + std::to_string(nic) +
             ", bandwidth_factor: " + num(log_uniform(1e-3, 1)) + "}\n";
      else
        y += "    - {node: " + std::to_string(node) + ", nic: " + std::to_string(nic) + ", failed: true}\n";
    }
  }
  const int passes = std::uniform_int_distribution<int>(0, 2)(rng_);
  y += std::string("simulation: {backend: analytic, layers: ") + std::to_string(sim_layers) + ", passes: " +
       (passes == 0 ? "[forward]" : passes == 1 ? "[backward]" : "[forward, backward]") + "}\n";
  return y;
}

}  // namespace hcpsim::test
