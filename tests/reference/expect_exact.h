#pragma once
// The check `hcpsim verify` makes (float, tolerance 1e-4) as a test expectation: O, dQ, dK and dV of
// the scenario's graph run by the reference executor all within the tolerance of dense attention.
#include <gtest/gtest.h>

#include "engine/reference/verify.h"

namespace hcpsim::testing {

inline reference::VerifyResult expect_exact_in_float(const Scenario& s) {
  reference::VerifyOptions o;
  o.exec.use_float = true;   // the precision hcpsim verify uses: tolerance 1e-4
  const reference::VerifyResult r = reference::verify_scenario(s, o);
  EXPECT_TRUE(r.ok) << r.detail << " out " << r.out << " dq " << r.dq << " dk " << r.dk << " dv " << r.dv;
  EXPECT_LT(r.out, 1e-4);
  EXPECT_LT(r.dq, 1e-4);
  EXPECT_LT(r.dk, 1e-4);
  EXPECT_LT(r.dv, 1e-4);
  EXPECT_GT(r.tasks, 0u);
  return r;
}

}  // namespace hcpsim::testing
