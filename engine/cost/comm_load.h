#pragma once
// The load a communication kernel puts on its GPU's compute (`comm_compute_interference`,
// docs/metrics.md section 9.1): the SMs it holds and the HBM traffic it makes, weighted.
namespace hcpsim {

// sms_taken / sm_count + hbm_weight * hbm_traffic_Bps / hbm_Bps, where hbm_traffic_Bps counts what
// the kernel reads plus what it writes.
inline double comm_compute_load_of(double sms_taken, int sm_count, double hbm_traffic_Bps, double hbm_Bps,
                                   double hbm_weight) {
  return sms_taken / static_cast<double>(sm_count) + hbm_weight * hbm_traffic_Bps / hbm_Bps;
}

}  // namespace hcpsim
