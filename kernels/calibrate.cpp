#include "kernels/calibrate.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <stdexcept>
#include <set>
#include <sstream>
#include <tuple>

#include "engine/cost/calibration.h"
#include "engine/graph/attention_work.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"
#include "kernels/cuda_check.h"
#include "kernels/nccl_loader.h"
#include "kernels/device.h"
#include "kernels/task_timer.h"

namespace hcpsim::kernels {
namespace {

struct AttnPoint {
  int q_len, kv_len, head_dim;
  bool causal;
  int heads, kv_heads;
  bool from_scenario;   // measured because the scenario's graph has this shape
  bool operator<(const AttnPoint& o) const {
    return std::tie(q_len, kv_len, head_dim, causal, heads, kv_heads, from_scenario) <
           std::tie(o.q_len, o.kv_len, o.head_dim, o.causal, o.heads, o.kv_heads, o.from_scenario);
  }
};

void check_nccl(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": NCCL: " + ncclGetErrorString(r));
}

// NCCL over all local GPUs in this process (ncclCommInitAll); bytes -> seconds per op.
struct LocalNccl {
  int n = 0;
  std::vector<ncclComm_t> comms;
  std::vector<cudaStream_t> streams;
  std::vector<void*> send, recv;
  std::size_t cap = 0;
  LocalNccl(int devices, std::size_t max_bytes) : n(devices), comms(devices), streams(devices), send(devices), recv(devices) {
    check_nccl(ncclCommInitAll(comms.data(), n, nullptr), "ncclCommInitAll");
    cap = max_bytes * static_cast<std::size_t>(n);
    for (int i = 0; i < n; ++i) {
      check_cuda(cudaSetDevice(i), "cudaSetDevice");
      check_cuda(cudaStreamCreate(&streams[i]), "cudaStreamCreate");
      check_cuda(cudaMalloc(&send[i], cap), "cudaMalloc (NCCL buffers)");
      check_cuda(cudaMalloc(&recv[i], cap), "cudaMalloc (NCCL buffers)");
    }
    cudaSetDevice(0);
  }
  ~LocalNccl() {
    for (int i = 0; i < n; ++i) {
      cudaSetDevice(i);
      if (comms[i]) ncclCommDestroy(comms[i]);
      cudaFree(send[i]);
      cudaFree(recv[i]);
      cudaStreamDestroy(streams[i]);
    }
    cudaSetDevice(0);
  }
  void sync() {
    for (int i = 0; i < n; ++i) {
      cudaSetDevice(i);
      check_cuda(cudaStreamSynchronize(streams[i]), "NCCL operation");
    }
  }
  // op: 0 send_recv (GPU0 -> GPU1 and back, concurrently), 1 all_to_all (bytes = per-rank tensor),
  // 2 all_gather (bytes = per-rank shard). Returns median seconds.
  double time_op(int op, std::size_t bytes, int iterations) {
    std::vector<double> t;
    for (int it = 0; it < iterations + 1; ++it) {
      const auto t0 = std::chrono::steady_clock::now();
      check_nccl(ncclGroupStart(), "ncclGroupStart");
      for (int i = 0; i < n; ++i) {
        if (op == 0) {
          if (i > 1) continue;
          check_nccl(ncclSend(send[i], bytes, ncclChar, 1 - i, comms[i], streams[i]), "ncclSend");
          check_nccl(ncclRecv(recv[i], bytes, ncclChar, 1 - i, comms[i], streams[i]), "ncclRecv");
        } else if (op == 1) {
          const std::size_t piece = bytes / n;
          for (int j = 0; j < n; ++j) {
            check_nccl(ncclSend(static_cast<char*>(send[i]) + j * piece, piece, ncclChar, j, comms[i], streams[i]), "ncclSend");
            check_nccl(ncclRecv(static_cast<char*>(recv[i]) + j * piece, piece, ncclChar, j, comms[i], streams[i]), "ncclRecv");
          }
        } else {
          check_nccl(ncclAllGather(send[i], recv[i], bytes, ncclChar, comms[i], streams[i]), "ncclAllGather");
        }
      }
      check_nccl(ncclGroupEnd(), "ncclGroupEnd");
      sync();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (it > 0) t.push_back(s);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

std::string software_string() {
  return describe_cuda_versions() + ", " + nccl_library_description() + ", hcpsim kernels (mma.sync bf16)";
}

using ShapeKey = std::tuple<int, bool, double>;   // (head_dim, causal, q_len * kv_len)

bool causal_section(MaskSection m) {
  return m == MaskSection::Diagonal || m == MaskSection::Causal || m == MaskSection::BottomRight;
}

// The grid, plus every attention shape of the scenario's graph (unless held out); `shadowed` gets
// the keys of the scenario's shapes.
std::set<AttnPoint> attention_points(const CalibrateRequest& r, std::set<ShapeKey>& scenario_keys) {
  std::set<AttnPoint> points;
  const std::vector<int> lens = r.quick ? std::vector<int>{1024, 8192} : std::vector<int>{1024, 2048, 4096, 8192, 16384};
  for (int hd : r.quick ? std::vector<int>{128} : std::vector<int>{64, 128})
    for (int n : lens)
      for (bool causal : {true, false}) points.insert({n, n, hd, causal, 16, 16, false});
  if (r.scenario == nullptr) return points;
  const Scenario& s = *r.scenario;
  const RankLayout layout = RankLayout::from_scenario(s);
  const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
  for (const auto& a : g.attention_shapes()) {
    if (a.head_dim_qk != a.head_dim_v || (a.head_dim_qk != 64 && a.head_dim_qk != 128)) continue;
    const bool causal = causal_section(a.section);
    scenario_keys.insert({a.head_dim_qk, causal, static_cast<double>(a.q_len) * static_cast<double>(a.kv_len)});
    if (!r.held_out_grid)
      points.insert({static_cast<int>(a.q_len), static_cast<int>(a.kv_len), a.head_dim_qk, causal,
                     a.heads * a.batch, a.kv_heads * a.batch, true});
  }
  return points;
}

void measure_links(const CalibrateRequest& r, const Scenario& s, Calibration& c, CalibrationResult& out) {
  if (out.gpus < 2) {
    out.links_note = "one GPU: NCCL send/recv, all-to-all and all-gather need at least 2 GPUs (links left uncalibrated)";
    return;
  }
  if (!nccl_library_found()) {
    out.links_note = nccl_library_description() + ": links not measured, one-GPU tables only";
    return;
  }
  const std::vector<std::size_t> sizes = r.quick ? std::vector<std::size_t>{1u << 20, 64u << 20}
                                                 : std::vector<std::size_t>{64u << 10, 1u << 20, 16u << 20, 128u << 20};
  LocalNccl nccl(out.gpus, sizes.back());
  const char* names[] = {"send_recv", "all_to_all", "all_gather"};
  for (int op = 0; op < 3; ++op) {
    for (std::size_t b : sizes) {
      LinkTiming l;
      l.op = names[op];
      l.bytes = static_cast<double>(b);
      l.seconds = nccl.time_op(op, b, r.iterations);
      double sent = l.bytes;
      if (op == 1) sent = l.bytes * (out.gpus - 1) / out.gpus;
      if (op == 2) sent = l.bytes * (out.gpus - 1);
      l.sent_Bps = sent / l.seconds;
      l.efficiency = std::clamp(l.sent_Bps / s.cluster.intra_node_bandwidth_Bps, 1e-6, 1.0);
      c.intra_node.push_back({l.op, l.bytes, l.efficiency});
      out.links.push_back(l);
    }
  }
}

}  // namespace

CalibrationResult measure_calibration(const CalibrateRequest& r) {
  if (r.held_out_grid && r.scenario == nullptr)
    throw std::invalid_argument("--grid holds the scenario's shapes out of the calibration: it needs a scenario FILE");
  const Scenario s = r.scenario != nullptr ? *r.scenario : Scenario{};   // defaults: nominal H100/H200 peak and NVLink
  std::string why;
  CalibrationResult out;
  out.gpus = cuda_device_count(&why);
  if (out.gpus == 0)
    throw NoCudaDevice("no CUDA device found (" + why + "); calibration measures real GPUs, run it on the machine you want to model");
  out.nominal_peak_flops = s.cluster.gpu.bf16_flops;
  out.nominal_link_Bps = s.cluster.intra_node_bandwidth_Bps;
  out.nominal_hbm_Bps = s.cluster.gpu.hbm_Bps;
  out.nominal_from_scenario = r.scenario != nullptr;
  out.held_out = r.held_out_grid;
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  Calibration c;
  c.hardware = describe_cuda_devices();
  out.devices = c.hardware;
  while (!c.hardware.empty() && c.hardware.back() == '\n') c.hardware.pop_back();
  c.software = software_string();
  out.software = c.software;

  std::set<ShapeKey> scenario_keys;
  const std::set<AttnPoint> points = attention_points(r, scenario_keys);
  TaskGraph cal;   // one synthetic task per (shape, pass), timed by TaskTimer
  cal.world_size = 1;
  std::vector<const AttnPoint*> point_of;   // per task
  for (const auto& p : points) {
    const bool same_size = scenario_keys.count({p.head_dim, p.causal, static_cast<double>(p.q_len) * p.kv_len}) > 0;
    if (r.held_out_grid && same_size) {
      ++out.held_out_grid_points;
      continue;
    }
    for (Pass pass : {Pass::Forward, Pass::Backward}) {
      const MaskSection section = !p.causal ? MaskSection::Full
                                  : (p.q_len == p.kv_len ? MaskSection::Diagonal : MaskSection::BottomRight);
      const AttentionShape a = attention_shape(1, p.q_len, p.kv_len, p.heads, p.kv_heads, p.head_dim, p.head_dim, section);
      add_attention_task(cal, a, pass);
      point_of.push_back(&p);
    }
  }
  Task tiny;
  tiny.kind = TaskKind::Copy;
  tiny.bytes = 512;
  const TaskId tiny_id = cal.add_task(tiny, "tiny_copy");
  Task big;
  big.kind = TaskKind::Copy;
  big.bytes = 1024.0 * 1024 * 1024;   // 512 MiB copied (read + write = 1 GiB)
  const TaskId big_id = cal.add_task(big, "big_copy");

  TaskTimer timer(cal, 1);
  cudaStream_t st = nullptr;
  check_cuda(cudaStreamCreate(&st), "cudaStreamCreate");
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{st};
  // Fixed cost per kernel (the cost model adds it to FLOPs / (peak * efficiency)).
  c.kernel_overhead_s = std::min(timer.time_task(cal.task(tiny_id), 3, 21, st), 9e-3);
  out.kernel_overhead_s = *c.kernel_overhead_s;
  for (const Task& t : cal.tasks()) {
    if (t.kind != TaskKind::AttentionForward && t.kind != TaskKind::AttentionBackward) continue;
    const AttentionShape& a = cal.attention_of(t);
    const AttnPoint& p = *point_of[cal.id_of(t)];
    AttentionTiming m;
    m.pass = t.pass;
    m.causal = p.causal;
    m.head_dim = a.head_dim_qk;
    m.q_len = static_cast<int>(a.q_len);
    m.kv_len = static_cast<int>(a.kv_len);
    m.heads = a.heads;
    m.kv_heads = a.kv_heads;
    m.flops = t.flops;
    m.seconds = timer.time_task(t, 1, r.iterations, st);
    const double work_s = std::max(m.seconds - out.kernel_overhead_s, 0.5 * m.seconds);
    m.efficiency = std::clamp(t.flops / work_s / out.nominal_peak_flops, 1e-6, 1.0);
    m.from_scenario = p.from_scenario;
    // A grid point at a size the scenario measures itself is shown but left out of the table.
    m.in_calibration = p.from_scenario ||
                       scenario_keys.count({p.head_dim, p.causal, static_cast<double>(p.q_len) * p.kv_len}) == 0;
    if (m.in_calibration)
      c.attention.push_back({m.pass, m.head_dim, m.causal, static_cast<double>(m.q_len), static_cast<double>(m.kv_len),
                             m.efficiency});
    out.attention.push_back(m);
  }
  out.copy_Bps = big.bytes / timer.time_task(cal.task(big_id), 1, r.iterations, st);
  measure_links(r, s, c, out);

  std::ostringstream yaml;
  yaml << "# Written by `hcpsim calibrate` on " << out.gpus << " GPU(s)"
       << (r.held_out_grid ? ", the standard grid without the scenario's shapes (held out)" : "")
       << ". Device copy bandwidth " << std::setprecision(0) << std::fixed << out.copy_Bps / 1e9 << " GB/s (read+write).\n"
       << calibration_to_yaml(c);
  // Read it back: the file must load in the cost model.
  load_calibration_string(yaml.str(), "calibration");
  out.yaml = yaml.str();
  return out;
}

}  // namespace hcpsim::kernels
