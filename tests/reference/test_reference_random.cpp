// Randomised configurations: mode, split, mask, heads, tp, batch, data seed and task order.
#include <gtest/gtest.h>

#include <random>

#include "engine/reference/verify.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

TEST(ReferenceRandom, RandomConfigurationsAreExact) {
  std::mt19937 rng(20261130);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (int iter = 0; iter < 24; ++iter) {
    testing::Config k;
    k.tp = 1 << pick(2);
    const int mode = pick(4);
    const int A = 1 << pick(3);
    const int P = A == 1 ? 2 << pick(2) : 1 << pick(3);
    k.cp = mode == 3 ? A * P : (2 << pick(2));
    k.types = {mode == 0 ? CpCommType::P2P : mode == 1 ? CpCommType::AllGather
               : mode == 2 ? CpCommType::A2A : CpCommType::A2AP2P};
    if (mode == 3) k.hcp = {A, P};
    const int degree = mode == 2 ? k.cp : mode == 3 ? A : 1;
    k.causal = pick(2) == 0;
    const int ratio = 1 << pick(3);   // query heads per KV head
    k.kv_heads = k.tp * degree;
    k.heads = k.kv_heads * ratio;
    k.batch = 1 + pick(2);
    k.head_dim = 4 + 4 * pick(2);
    k.seq = 2LL * k.cp * (2 + 2 * pick(2));
    reference::VerifyOptions o;
    o.exec.seed = rng();
    o.exec.order_seed = rng();
    const auto r = reference::verify_scenario(testing::make_scenario(k), o);
    EXPECT_TRUE(r.ok) << "iter " << iter << " mode " << to_string(k.types[0]) << " tp " << k.tp << " cp " << k.cp
                      << " A " << A << " P " << P << " heads " << k.heads << "/" << k.kv_heads << " causal "
                      << k.causal << ": out " << r.out << " dq " << r.dq << " dk " << r.dk << " dv " << r.dv;
  }
}

}  // namespace
}  // namespace hcpsim
