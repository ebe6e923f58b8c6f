#include "kernels/calibrate.h"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
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
  int rt = 0, drv = 0, nccl = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  ncclGetVersion(&nccl);
  std::ostringstream os;
  os << "CUDA runtime " << rt / 1000 << "." << (rt % 1000) / 10 << ", driver " << drv / 1000 << "."
     << (drv % 1000) / 10 << ", NCCL " << nccl << ", hcpsim kernels (mma.sync bf16)";
  return os.str();
}

}  // namespace

int run_calibration(const CalibrateRequest& r, std::ostream& out, std::ostream& err) {
  const bool have_scenario = r.scenario != nullptr;
  const Scenario s = have_scenario ? *r.scenario : Scenario{};   // defaults: nominal H100/H200 peak and NVLink
  std::string why;
  const int devices = cuda_device_count(&why);
  if (devices == 0) {
    err << "hcpsim calibrate: error: no CUDA device found (" << why
        << "); calibration measures real GPUs, run it on the machine you want to model\n";
    return 1;
  }
  const double peak = s.cluster.gpu.bf16_flops;
  const double link_Bps = s.cluster.intra_node_bandwidth_Bps;
  try {
    check_cuda(cudaSetDevice(0), "cudaSetDevice");
    Calibration c;
    c.hardware = describe_cuda_devices();
    while (!c.hardware.empty() && c.hardware.back() == '\n') c.hardware.pop_back();
    c.software = software_string();
    out << c.hardware << "\nnominal bf16 peak " << peak / 1e12 << " TFLOP/s, intra-node link " << link_Bps / 1e9
        << " GB/s" << (have_scenario ? " (from the scenario)" : " (defaults; pass a scenario to change)") << '\n';

    // Attention shapes: a grid, plus every attention shape of the scenario's graph.
    std::set<AttnPoint> points;
    std::set<std::tuple<int, bool, double>> scenario_keys;   // (head_dim, causal, q_len*kv_len)
    const std::vector<int> lens = r.quick ? std::vector<int>{1024, 8192} : std::vector<int>{1024, 2048, 4096, 8192, 16384};
    for (int hd : r.quick ? std::vector<int>{128} : std::vector<int>{64, 128})
      for (int n : lens)
        for (bool causal : {true, false}) points.insert({n, n, hd, causal, 16, 16, false});
    if (have_scenario) {
      const RankLayout layout = RankLayout::from_scenario(s);
      const TaskGraph g = build_task_graph(s, layout, graph_options_from(s));
      for (const auto& a : g.attention_shapes()) {
        if (a.head_dim_qk != a.head_dim_v || (a.head_dim_qk != 64 && a.head_dim_qk != 128)) continue;
        const bool causal = a.section == MaskSection::Diagonal || a.section == MaskSection::Causal ||
                            a.section == MaskSection::BottomRight;
        points.insert({static_cast<int>(a.q_len), static_cast<int>(a.kv_len), a.head_dim_qk, causal,
                       a.heads * a.batch, a.kv_heads * a.batch, true});
        scenario_keys.insert({a.head_dim_qk, causal, static_cast<double>(a.q_len) * static_cast<double>(a.kv_len)});
      }
    }
    TaskGraph cal;   // one synthetic task per (shape, pass), timed by TaskTimer
    cal.world_size = 1;
    std::vector<char> shadowed;   // per task: a grid point at a length the scenario measures itself
    for (const auto& p : points) {
      for (Pass pass : {Pass::Forward, Pass::Backward}) {
        const MaskSection section = !p.causal ? MaskSection::Full
                                    : (p.q_len == p.kv_len ? MaskSection::Diagonal : MaskSection::BottomRight);
        const AttentionShape a = attention_shape(1, p.q_len, p.kv_len, p.heads, p.kv_heads, p.head_dim, p.head_dim, section);
        Task t;
        t.kind = pass == Pass::Forward ? TaskKind::AttentionForward : TaskKind::AttentionBackward;
        t.pass = pass;
        t.attention = cal.add_attention(a);
        t.flops = attention_flops(a, pass);
        cal.add_task(t, "attn");
        shadowed.push_back(!p.from_scenario &&
                           scenario_keys.count({p.head_dim, p.causal, static_cast<double>(p.q_len) * p.kv_len}) > 0);
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
    // Fixed cost per kernel (the cost model adds it to FLOPs / (peak * efficiency)).
    c.kernel_overhead_s = std::min(timer.time_task(cal.task(tiny_id), 3, 21, st), 9e-3);
    out << "\n" << std::left << std::setw(10) << "pass" << std::setw(6) << "mask" << std::right << std::setw(6)
        << "d" << std::setw(8) << "q_len" << std::setw(8) << "kv_len" << std::setw(5) << "h" << std::setw(5) << "hkv" << std::setw(12) << "ms" << std::setw(10)
        << "TFLOP/s" << std::setw(8) << "eff" << '\n';
    for (const Task& t : cal.tasks()) {
      if (t.kind != TaskKind::AttentionForward && t.kind != TaskKind::AttentionBackward) continue;
      const AttentionShape& a = cal.attention_of(t);
      const double sec = timer.time_task(t, 1, r.iterations, st);
      const double work_s = std::max(sec - *c.kernel_overhead_s, 0.5 * sec);
      const double eff = std::clamp(t.flops / work_s / peak, 1e-6, 1.0);
      AttentionCalibrationPoint p;
      p.pass = t.pass;
      p.head_dim = a.head_dim_qk;
      p.causal = a.section != MaskSection::Full;
      p.q_len = static_cast<double>(a.q_len);
      p.kv_len = static_cast<double>(a.kv_len);
      p.efficiency = eff;
      if (!shadowed[cal.id_of(t)]) c.attention.push_back(p);
      out << std::left << std::setw(10) << to_string(t.pass) << std::setw(6) << (p.causal ? "causal" : "none")
          << std::right << std::setw(6) << p.head_dim << std::setw(8) << a.q_len << std::setw(8) << a.kv_len
          << std::setw(5) << a.heads << std::setw(5) << a.kv_heads << std::setw(12) << std::fixed << std::setprecision(3) << sec * 1e3 << std::setw(10)
          << std::setprecision(1) << t.flops / sec / 1e12 << std::setw(8) << std::setprecision(3) << eff << '\n';
    }
    const double copy_s = timer.time_task(cal.task(big_id), 1, r.iterations, st);
    const double copy_Bps = big.bytes / copy_s;
    cudaStreamDestroy(st);
    out << "\nkernel overhead (tiny copy) " << std::setprecision(2) << *c.kernel_overhead_s * 1e6 << " us; "
        << "device copy " << std::setprecision(0) << copy_Bps / 1e9 << " GB/s read+write ("
        << std::setprecision(2) << copy_Bps / s.cluster.gpu.hbm_Bps << " of the nominal HBM bandwidth)\n";

    if (devices >= 2) {
      const std::vector<std::size_t> sizes = r.quick ? std::vector<std::size_t>{1u << 20, 64u << 20}
                                                     : std::vector<std::size_t>{64u << 10, 1u << 20, 16u << 20, 128u << 20};
      out << '\n' << nccl_library_description() << '\n';
      LocalNccl nccl(devices, sizes.back());
      out << "NCCL over " << devices << " local GPUs (efficiency = bytes a rank sends / time / link bandwidth)\n";
      const char* names[] = {"send_recv", "all_to_all", "all_gather"};
      for (int op = 0; op < 3; ++op) {
        for (std::size_t b : sizes) {
          const double sec = nccl.time_op(op, b, r.iterations);
          double sent = static_cast<double>(b);
          if (op == 1) sent = static_cast<double>(b) * (devices - 1) / devices;
          if (op == 2) sent = static_cast<double>(b) * (devices - 1);
          const double eff = std::clamp(sent / sec / link_Bps, 1e-6, 1.0);
          c.intra_node.push_back({names[op], static_cast<double>(b), eff});
          out << "  " << std::left << std::setw(12) << names[op] << std::right << std::setw(12) << b << " B "
              << std::setw(10) << std::setprecision(1) << sent / sec / 1e9 << " GB/s  eff " << std::setprecision(3)
              << eff << '\n';
        }
      }
    } else {
      out << "\none GPU: NCCL send/recv, all-to-all and all-gather need at least 2 GPUs (links left uncalibrated)\n";
    }

    std::ostringstream yaml;
    yaml << "# Written by `hcpsim calibrate` on " << devices << " GPU(s). Device copy bandwidth "
         << std::setprecision(0) << std::fixed << copy_Bps / 1e9 << " GB/s (read+write).\n"
         << calibration_to_yaml(c);
    // Read it back: the file must load in the cost model.
    load_calibration_string(yaml.str(), "calibration");
    if (r.out_path.empty()) {
      out << '\n' << yaml.str();
    } else {
      std::ofstream f(r.out_path);
      if (!(f << yaml.str())) {
        err << "hcpsim calibrate: error: cannot write " << r.out_path << '\n';
        return 1;
      }
      out << "\ncalibration written to " << r.out_path << '\n';
    }
  } catch (const std::exception& e) {
    err << "hcpsim calibrate: error: " << e.what() << '\n';
    return 1;
  }
  return 0;
}

}  // namespace hcpsim::kernels
