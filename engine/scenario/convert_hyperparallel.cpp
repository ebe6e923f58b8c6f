// The `hyperparallel:` section and `model.dsa` (docs/scenario.md "HyperParallel"). The checks that
// need other sections (heads, cp, sequence) are in validate_hyperparallel.cpp.
#include "engine/scenario/convert.h"
#include "engine/scenario/limits.h"

namespace hcpsim::detail {

void convert_hyperparallel(const YAML::Node& h, YamlReader& r, Scenario& s) {
  const std::string P = "hyperparallel";
  auto& hp = s.hyperparallel;
  hp.enabled = true;
  if (h.IsNull()) return;   // `hyperparallel:` alone: ContextParallel, pure Ulysses
  if (!r.check_map(h, P, P)) return;
  if (auto v = r.get_choice(h, P, "style", hp_style_names())) hp.style = *hp_style_named(*v);
  // ulysses_degree: null is HyperParallel's default None (pure Ulysses).
  if (const YAML::Node n = h["ulysses_degree"]; n.IsDefined() && !n.IsNull())
    if (auto v = r.get_int(h, P, "ulysses_degree", 1))
      hp.ulysses_degree = static_cast<int>(std::min<std::int64_t>(*v, limits::kMaxWorldSize + 1));
  if (auto v = r.get_bool(h, P, "load_balance")) hp.load_balance = *v;
  if (auto v = r.get_choice(h, P, "layout", {"BSND", "TND"})) {
    hp.layout = *v == "BSND" ? HpLayout::BSND : HpLayout::TND;
    hp.layout_given = true;
  }
  if (const YAML::Node n = h["mesh_dim_names"]; n.IsDefined() && !n.IsNull()) {
    const std::string path = P + ".mesh_dim_names";
    if (!n.IsSequence()) {
      r.error(n, path, std::string("expected a list of two names such as [co, ds], got ") + node_kind(n),
              {"the first name is the Colossal (K/V all-gather) dimension, the second the Ulysses one"});
    } else if (r.check_list_size(n, path, 2)) {
      std::vector<std::string> names;
      bool ok = true;
      for (std::size_t i = 0; i < n.size(); ++i) {
        const std::string ip = path + "[" + std::to_string(i) + "]";
        r.record_item(n[i], ip);
        auto v = r.string_of(n[i], ip, limits::kMaxNameChars);
        if (!v) ok = false;
        else if (v->empty()) {
          r.error(n[i], ip, "a mesh dimension name may not be empty", {"e.g. mesh_dim_names: [co, ds]"});
          ok = false;
        } else names.push_back(*v);
      }
      if (ok) hp.mesh_dim_names = names;
    }
  }
}

void convert_dsa(const YAML::Node& d, YamlReader& r, Scenario& s) {
  const std::string P = "model.dsa";
  if (!r.check_map(d, P, P)) return;
  auto& dsa = s.model.dsa;
  dsa.enabled = true;
  for (const char* k : {"index_topk", "index_n_heads", "index_head_dim"})
    if (!d[k].IsDefined())
      r.error(d, P + "." + k, std::string("missing required field '") + k + "'",
              {"DeepSeek-V3.2 uses index_topk: 2048, index_n_heads: 64, index_head_dim: 128"});
  // Upper limits checked here (the range table repeats them): a value past them never reaches an int.
  auto read = [&](const char* key, std::int64_t hi, int& dst) {
    auto v = r.get_int(d, P, key, 1);
    if (!v) return;
    if (*v > hi) {
      r.error(d[key], P + "." + key, std::to_string(*v) + " is out of range (valid range 1 to " + std::to_string(hi) + ")",
              {"docs/scenario.md \"Valid ranges\" lists the range of every field"});
      return;
    }
    dst = static_cast<int>(*v);
  };
  read("index_topk", std::int64_t{1} << 30, dsa.index_topk);
  read("index_n_heads", 16384, dsa.index_n_heads);
  read("index_head_dim", 16384, dsa.index_head_dim);
}

}  // namespace hcpsim::detail
