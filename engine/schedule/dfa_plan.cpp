// DistFlashAttn's work and message plan (dfa_schedule.h): pure functions of the CP size, the rank and
// the step, shared by the forward and backward builders and the accounting tests.
#include <stdexcept>
#include <string>

#include "engine/schedule/dfa_schedule.h"

namespace hcpsim::schedule {

int dfa_last_step(int P) { return P / 2; }
int dfa_last_help_step(int P) { return P - 1 - P / 2; }

DfaWork dfa_work(int P, int p, int t) {
  if (P < 1 || p < 0 || p >= P || t < 0 || t > dfa_last_step(P))
    throw std::invalid_argument("dfa_work: rank " + std::to_string(p) + " step " + std::to_string(t) +
                                " is outside a ring of " + std::to_string(P));
  if (p >= t) return {DfaRole::Local, p, p - t};
  if (t <= dfa_last_help_step(P)) return {DfaRole::Help, p + P - t, p};
  return {};
}

DfaPeers dfa_peers(int P, int p, int k, bool backward) {
  DfaPeers x;
  const int m = dfa_last_step(P), H = dfa_last_help_step(P);
  const int u = k + 1;   // the step this exchange feeds
  if (u <= m) {
    if (p + u < P) {
      x.fetch_to = p + u;
    } else if (u <= H) {
      x.fetch_to = p + u - P;
      x.fetch_to_helper = true;
    }
    const DfaWork w = dfa_work(P, p, u);
    if (w.role == DfaRole::Local) x.fetch_from = w.kv_owner;
    if (w.role == DfaRole::Help) {
      x.fetch_from = w.q_owner;
      x.fetch_from_owner = true;
    }
  }
  const int s = k - 1;   // the step whose results this exchange returns
  if (s >= 1 && s <= m) {
    const DfaWork w = dfa_work(P, p, s);
    if (w.role == DfaRole::Help) x.result_to = w.q_owner;
    if (backward && w.role == DfaRole::Local) x.dkv_to = w.kv_owner;
    const int j = p - P + s;   // the helper that computed a block of p's queries at step s
    if (j >= 0 && dfa_work(P, j, s).role == DfaRole::Help) x.result_from = j;
    if (backward && p + s < P) x.dkv_from = p + s;
  }
  return x;
}

int dfa_exchanges(int P, bool backward) {
  const int m = dfa_last_step(P);
  if (P < 2) return 0;
  const bool last_returns = backward || m <= dfa_last_help_step(P);
  return m + 1 + (last_returns ? 1 : 0);
}

}  // namespace hcpsim::schedule
