// The schedules compute exact attention: every mode x mask x {MHA, GQA, MQA} x tp {1,2} x CP
// split, run on the reference executor and compared with dense single-device attention.
#include <gtest/gtest.h>

#include <string>

#include "engine/reference/verify.h"
#include "tests/graph/scenario_fixture.h"

namespace hcpsim {
namespace {

enum class Heads { MHA, GQA, MQA };

struct Case {
  CpCommType type;
  int cp;
  std::vector<int> hcp;
  bool causal;
  Heads heads;
  int tp;
};

std::string case_name(const ::testing::TestParamInfo<Case>& i) {
  const Case& c = i.param;
  std::string n = c.type == CpCommType::P2P ? "p2p" : c.type == CpCommType::A2A ? "a2a"
                 : c.type == CpCommType::AllGather ? "allgather" : "a2ap2p";
  n += "_cp" + std::to_string(c.cp);
  if (!c.hcp.empty()) n += "_" + std::to_string(c.hcp[0]) + "x" + std::to_string(c.hcp[1]);
  n += c.causal ? "_causal" : "_nomask";
  n += c.heads == Heads::MHA ? "_mha" : c.heads == Heads::GQA ? "_gqa" : "_mqa";
  n += "_tp" + std::to_string(c.tp);
  return n;
}

int degree_of(const Case& c) {
  if (c.type == CpCommType::A2A) return c.cp;
  if (c.type == CpCommType::A2AP2P) return c.hcp[0];
  return 1;
}

testing::Config config_of(const Case& c) {
  testing::Config k;
  k.tp = c.tp;
  k.cp = c.cp;
  k.hcp = c.hcp;
  k.types = {c.type};
  k.causal = c.causal;
  const int D = degree_of(c);
  switch (c.heads) {
    case Heads::MHA: k.kv_heads = k.heads = c.tp * D; break;
    case Heads::GQA: k.kv_heads = c.tp * D; k.heads = 2 * k.kv_heads; break;
    case Heads::MQA: k.kv_heads = 1; k.heads = 2 * c.tp; break;
  }
  return k;
}

std::vector<Case> all_cases() {
  struct Layout { CpCommType t; int cp; std::vector<int> hcp; };
  const std::vector<Layout> layouts = {
      {CpCommType::P2P, 2, {}}, {CpCommType::P2P, 4, {}}, {CpCommType::P2P, 8, {}},
      {CpCommType::AllGather, 2, {}}, {CpCommType::AllGather, 4, {}},
      {CpCommType::A2A, 2, {}}, {CpCommType::A2A, 4, {}},
      {CpCommType::A2AP2P, 4, {2, 2}}, {CpCommType::A2AP2P, 8, {2, 4}}, {CpCommType::A2AP2P, 8, {4, 2}},
      {CpCommType::A2AP2P, 16, {8, 2}}, {CpCommType::A2AP2P, 4, {1, 4}}, {CpCommType::A2AP2P, 4, {4, 1}}};
  std::vector<Case> out;
  for (const auto& l : layouts)
    for (bool causal : {true, false})
      for (Heads h : {Heads::MHA, Heads::GQA, Heads::MQA})
        for (int tp : {1, 2}) {
          Case c{l.t, l.cp, l.hcp, causal, h, tp};
          // MQA cannot be split by heads over an a2a group of size > 1 (docs/scenario.md rule 7); tested below.
          if (h == Heads::MQA && degree_of(c) > 1) continue;
          out.push_back(c);
        }
  return out;
}

class ReferenceExact : public ::testing::TestWithParam<Case> {};

TEST_P(ReferenceExact, MatchesDenseAttentionInDouble) {
  const Scenario s = testing::make_scenario(config_of(GetParam()));
  const auto r = reference::verify_scenario(s);
  EXPECT_TRUE(r.ok) << "out " << r.out << " dq " << r.dq << " dk " << r.dk << " dv " << r.dv << " " << r.detail;
  EXPECT_LT(r.out, 1e-5);
  EXPECT_LT(r.dq, 1e-5);
  EXPECT_LT(r.dk, 1e-5);
  EXPECT_LT(r.dv, 1e-5);
  EXPECT_GT(r.tasks, 0u);
}

INSTANTIATE_TEST_SUITE_P(AllModes, ReferenceExact, ::testing::ValuesIn(all_cases()), case_name);

TEST(ReferenceExact, FloatWithinFloatTolerance) {
  for (CpCommType t : {CpCommType::P2P, CpCommType::A2A, CpCommType::AllGather, CpCommType::A2AP2P}) {
    testing::Config k;
    k.cp = 4;
    k.types = {t};
    if (t == CpCommType::A2AP2P) k.hcp = {2, 2};
    k.heads = k.kv_heads = 4;
    reference::VerifyOptions o;
    o.exec.use_float = true;
    const auto r = reference::verify_scenario(testing::make_scenario(k), o);
    EXPECT_TRUE(r.ok) << to_string(t) << " out " << r.out << " dq " << r.dq;
    EXPECT_DOUBLE_EQ(r.tolerance, 1e-4);
  }
}

TEST(ReferenceExact, ThreadPoolGivesTheSameAnswer) {
  testing::Config k;
  k.cp = 8;
  k.hcp = {2, 4};
  k.types = {CpCommType::A2AP2P};
  k.heads = 4;
  k.kv_heads = 2;
  k.batch = 2;
  reference::VerifyOptions o;
  o.exec.workers = 4;
  const auto r = reference::verify_scenario(testing::make_scenario(k), o);
  EXPECT_TRUE(r.ok) << r.out << " " << r.dq << " " << r.dk << " " << r.dv;
}

TEST(ReferenceExact, PerLayerModesAndMicroBatch) {
  testing::Config k;
  k.tp = 2;
  k.cp = 4;
  k.hcp = {2, 2};
  k.layers = 4;
  k.types = {CpCommType::P2P, CpCommType::A2AP2P, CpCommType::AllGather, CpCommType::A2A};
  k.heads = 16;
  k.kv_heads = 8;
  k.batch = 2;
  const auto r = reference::verify_scenario(testing::make_scenario(k));
  EXPECT_EQ(r.layers, 4);
  EXPECT_TRUE(r.ok) << r.out << " " << r.dq << " " << r.dk << " " << r.dv << " " << r.detail;
}

TEST(ReferenceExact, MqaOverAnA2AGroupIsRejectedWithTheHeadCounts) {
  testing::Config k;
  k.cp = 4;
  k.types = {CpCommType::A2A};
  k.heads = 4;
  k.kv_heads = 1;
  try {
    reference::verify_scenario(testing::make_scenario(k));
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("g_t = 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hcpsim
