// DistFlashAttn's load-balanced ring (cp_comm_type: dfa) computes exact attention: O, dQ, dK, dV
// against dense attention, MHA and GQA, even and odd CP sizes, tp 1 and 2, one and two layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/reference/verify.h"
#include "tests/reference/expect_exact.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

struct DfaCase {
  std::string name;
  int cp;
  bool gqa;
  int tp;
  int layers;
};

Scenario scenario_of(const DfaCase& c) {
  testing::Config k;
  k.tp = c.tp;
  k.cp = c.cp;
  k.types = {CpCommType::DistFlashAttn};
  k.kv_heads = c.tp * (c.gqa ? 1 : 2);
  k.heads = c.tp * 2;
  k.seq = 3LL * c.cp;   // one chunk of 3 tokens per rank (dfa needs a multiple of cp only)
  k.batch = 2;
  k.layers = c.layers;
  return testing::make_scenario(k);
}

class DfaExact : public ::testing::TestWithParam<DfaCase> {};

TEST_P(DfaExact, MatchesDenseAttention) {
  testing::expect_exact_in_float(scenario_of(GetParam()));
}

TEST_P(DfaExact, MatchesInDoublePrecisionWithRandomTaskOrder) {
  const Scenario s = scenario_of(GetParam());
  reference::VerifyOptions o;
  o.exec.order_seed = 11;
  o.exec.workers = 1;   // another seeded random order of the ready tasks
  const auto r = reference::verify_scenario(s, o);
  EXPECT_TRUE(r.ok) << r.detail;
  EXPECT_LT(std::max({r.out, r.dq, r.dk, r.dv}), 1e-5);
}

std::vector<DfaCase> cases() {
  std::vector<DfaCase> v;
  for (bool gqa : {false, true})
    for (int cp : {2, 3, 4, 5, 6, 7, 8}) v.push_back({"cp" + std::to_string(cp) + (gqa ? "_gqa" : "_mha"), cp, gqa, 1, 1});
  v.push_back({"cp4_mha_tp2", 4, false, 2, 1});
  v.push_back({"cp5_gqa_tp2", 5, true, 2, 1});
  v.push_back({"cp3_mha_two_layers", 3, false, 1, 2});
  v.push_back({"cp6_gqa_two_layers", 6, true, 1, 2});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Dfa, DfaExact, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<DfaCase>& i) { return i.param.name; });

}  // namespace
}  // namespace hcpsim
