#include "cli/calibrate_print.h"

#include <iomanip>
#include <ostream>

#include "kernels/device.h"
#include "kernels/nccl_loader.h"

namespace hcpsim::cli {

void print_calibration(const kernels::CalibrationResult& r, std::ostream& out) {
  out << r.devices << r.software << "\nnominal bf16 peak " << r.nominal_peak_flops / 1e12 << " TFLOP/s, intra-node link "
      << r.nominal_link_Bps / 1e9 << " GB/s"
      << (r.nominal_from_scenario ? " (from the scenario)" : " (defaults; pass a scenario to change)") << '\n';
  if (r.held_out)
    out << "held out: the standard grid only; the scenario's attention shapes are not measured, and "
        << r.held_out_grid_points << " grid point(s) of the same size as one of them left out\n";
  out << "\n" << std::left << std::setw(10) << "pass" << std::setw(7) << "mask" << std::right << std::setw(5) << "d"
      << std::setw(8) << "q_len" << std::setw(8) << "kv_len" << std::setw(5) << "h" << std::setw(5) << "hkv"
      << std::setw(12) << "ms" << std::setw(10) << "TFLOP/s" << std::setw(8) << "eff" << "  source\n";
  for (const auto& a : r.attention) {
    out << std::left << std::setw(10) << to_string(a.pass) << std::setw(7) << (a.causal ? "causal" : "none")
        << std::right << std::setw(5) << a.head_dim << std::setw(8) << a.q_len << std::setw(8) << a.kv_len
        << std::setw(5) << a.heads << std::setw(5) << a.kv_heads << std::setw(12) << std::fixed
        << std::setprecision(3) << a.seconds * 1e3 << std::setw(10) << std::setprecision(1)
        << a.flops / a.seconds / 1e12 << std::setw(8) << std::setprecision(3) << a.efficiency << "  "
        << (a.from_scenario ? "scenario" : a.in_calibration ? "grid" : "grid (not used: the scenario has this size)")
        << '\n';
  }
  out << "\nkernel overhead (tiny copy) " << std::setprecision(2) << r.kernel_overhead_s * 1e6 << " us; device copy "
      << std::setprecision(0) << r.copy_Bps / 1e9 << " GB/s read+write (" << std::setprecision(2)
      << r.copy_Bps / r.nominal_hbm_Bps << " of the nominal HBM bandwidth)\n";
  if (!r.links_note.empty()) {
    out << '\n' << r.links_note << '\n';
  } else {
    out << "\nNCCL over " << r.gpus << " local GPUs (efficiency = bytes a rank sends / time / link bandwidth)\n";
    for (const auto& l : r.links)
      out << "  " << std::left << std::setw(12) << l.op << std::right << std::setw(12) << static_cast<long long>(l.bytes)
          << " B " << std::setw(10) << std::setprecision(1) << l.sent_Bps / 1e9 << " GB/s  eff " << std::setprecision(3)
          << l.efficiency << '\n';
  }
  out.unsetf(std::ios::floatfield);
}

void print_interference_csv(const kernels::InterferenceResult& r, std::ostream& out) {
  out << "# attention " << r.attention << "; device SMs " << r.sm_count << ", nominal HBM " << r.hbm_Bps / 1e12
      << " TB/s, comm_hbm_interference " << r.hbm_weight << "\n"
      << "pass,copy_ctas,copy_alone_GBps,attention_alone_ms,attention_alone_tflops,attention_beside_ms,"
         "measured_slowdown,model_load,model_slowdown,slowdown_error\n";
  for (const auto& p : r.points) {
    out << p.pass << ',' << p.copy_ctas << ',' << std::fixed << std::setprecision(1) << p.copy_alone_Bps / 1e9 << ','
        << std::setprecision(4) << p.attention_alone_s * 1e3 << ',' << std::setprecision(1)
        << p.attention_flops / p.attention_alone_s / 1e12 << ',' << std::setprecision(4) << p.attention_beside_s * 1e3 << ','
        << p.measured_slowdown << ',' << p.model_load << ',' << p.model_slowdown << ','
        << p.model_slowdown / p.measured_slowdown - 1.0 << '\n';
  }
  out.unsetf(std::ios::floatfield);
}

int print_devices(std::ostream& out) {
  out << kernels::describe_cuda_versions() << '\n';
  std::string why;
  const int n = kernels::cuda_device_count(&why);
  if (n == 0) out << "no CUDA device found (" << why << ")\n";
  else out << kernels::describe_cuda_devices();
  out << (kernels::nccl_library_found() ? "" : "not needed on one GPU; ") << kernels::nccl_library_description() << '\n';
  return n;
}

}  // namespace hcpsim::cli
