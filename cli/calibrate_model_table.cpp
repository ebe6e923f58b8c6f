#include "cli/calibrate_model_table.h"

#include <iomanip>
#include <ostream>
#include <set>
#include <tuple>

#include "engine/cost/cost_model.h"
#include "engine/layout/rank_layout.h"
#include "engine/schedule/build.h"

namespace hcpsim::cli {
namespace {

void print_attention_rows(const Scenario& s, std::ostream& out) {
  const RankLayout layout = RankLayout::from_scenario(s);
  GraphOptions go = graph_options_from(s);
  go.with_payloads = false;
  const TaskGraph g = build_task_graph(s, layout, go);
  const CostModel cost(s);
  std::set<std::tuple<int, int, std::int64_t, std::int64_t, int, int, int, int>> seen;
  for (const Task& t : g.tasks()) {
    if ((t.kind != TaskKind::AttentionForward && t.kind != TaskKind::AttentionBackward) || t.attention == kNone) continue;
    const AttentionShape& a = g.attention_of(t);
    const Pass pass = t.kind == TaskKind::AttentionForward ? Pass::Forward : Pass::Backward;
    if (!seen.insert({static_cast<int>(pass), static_cast<int>(a.section), a.q_len, a.kv_len, a.heads, a.kv_heads,
                      a.head_dim_qk, a.batch})
             .second)
      continue;
    out << "attention," << to_string(pass) << ',' << to_string(a.section) << ',' << a.batch << ',' << a.q_len << ','
        << a.kv_len << ',' << a.heads << ',' << a.kv_heads << ',' << a.head_dim_qk << ",,,,bf16," << t.flops << ','
        << cost.attention_efficiency(pass, a) << ',' << cost.compute_seconds(g, t) * 1e3 << '\n';
  }
}

void print_gemm_rows(const Scenario& s, std::ostream& out) {
  const auto& m = s.model;
  const std::int64_t tokens = static_cast<std::int64_t>(m.seq_length) / s.cp() * s.train.micro_batch_size;
  const int tp = s.tp(), d = s.head_dim(), h = m.hidden_size;
  const int heads = m.num_attention_heads, kvh = m.num_query_groups > 0 ? m.num_query_groups : heads;
  struct Gemm {
    const char* name;
    std::int64_t n, k;
  };
  std::vector<Gemm> gemms{{"qkv", static_cast<std::int64_t>(heads + 2 * kvh) * d / tp, h},
                          {"proj", h, static_cast<std::int64_t>(heads) * d / tp}};
  if (m.ffn_hidden_size > 0) {
    gemms.push_back({"fc1", m.ffn_hidden_size / tp, h});
    gemms.push_back({"fc2", h, m.ffn_hidden_size / tp});
  }
  for (const bool fp8 : {false, true}) {
    if (fp8 && !(s.cluster.gpu.fp8_flops > 0)) continue;
    Scenario sd = s;
    sd.model.fp8 = fp8 ? "e4m3" : "";
    const CostModel cost(sd);
    for (const Gemm& gm : gemms) {
      TaskGraph g;
      g.world_size = 1;
      Task t;
      t.kind = TaskKind::Gemm;
      t.flops = 2.0 * static_cast<double>(tokens) * static_cast<double>(gm.n) * static_cast<double>(gm.k);
      const Task& task = g.task(g.add_task(t, gm.name));
      const double sec = cost.compute_seconds(g, task);
      out << "gemm_" << gm.name << ",,,,,,,,," << tokens << ',' << gm.n << ',' << gm.k << ',' << (fp8 ? "fp8" : "bf16")
          << ',' << t.flops << ',' << cost.gemm_efficiency(t.flops) << ',' << sec * 1e3 << '\n';
    }
  }
}

}  // namespace

void print_model_table(const Scenario& s, std::ostream& out) {
  out << "kind,pass,mask,batch,q_len,kv_len,heads,kv_heads,head_dim,m,n,k,dtype,flops,model_efficiency,model_ms\n"
      << std::setprecision(6);
  print_attention_rows(s, out);
  if (s.model.hidden_size > 0) print_gemm_rows(s, out);
}

}  // namespace hcpsim::cli
