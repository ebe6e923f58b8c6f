#include "engine/scenario/pipeline_split.h"

#include <stdexcept>

#include "engine/scenario/scenario.h"

namespace hcpsim {
namespace {

const std::string kFirst = "model.decoder_first_pipeline_num_layers";
const std::string kLast = "model.decoder_last_pipeline_num_layers";
const std::string kEmbedding = "model.account_for_embedding_in_pipeline_split";
const std::string kLoss = "model.account_for_loss_in_pipeline_split";

std::string str(long long v) { return std::to_string(v); }

PipelineSplitProblem problem(const std::string& field, const std::string& message, std::vector<std::string> hints = {}) {
  return {field, message, std::move(hints)};
}

// The first / last stage sizes `f` (and the same for the last) that leave a middle divisible by the
// middle stages and every stage divisible by vpp: a hint for a broken first/last split.
std::string balanced_hint(int L, int p, int v) {
  for (int q = (L + p - 1) / p; q <= L; ++q) {
    if (q % v != 0) continue;
    const int rest = L - (p - 2) * q;
    if (rest < 2) break;
    for (int f = rest / 2; f >= 1 && rest - f <= q; --f) {
      const int l = rest - f;
      if (f % v == 0 && l % v == 0 && f <= q)
        return "e.g. decoder_first_pipeline_num_layers: " + str(f) + " and decoder_last_pipeline_num_layers: " + str(l) +
               " (" + str(p - 2) + " middle stages of " + str(q) + ")";
    }
  }
  return "choose first and last so that the rest divides by the middle stages";
}

std::optional<PipelineSplitProblem> first_last_problem(const ModelConfig& m) {
  const int L = m.num_layers, p = m.pipeline_model_parallel_size, v = m.virtual_pipeline_model_parallel_size;
  const std::string& field = m.decoder_first_pipeline_num_layers ? kFirst : kLast;
  if (m.account_for_embedding_in_pipeline_split || m.account_for_loss_in_pipeline_split)
    return problem(m.account_for_embedding_in_pipeline_split ? kEmbedding : kLoss,
                   "decoder_first/last_pipeline_num_layers cannot be set together with "
                   "account_for_embedding_in_pipeline_split or account_for_loss_in_pipeline_split (Megatron-Core refuses it)",
                   {"use one of the two ways to split unevenly"});
  if (p < 2)
    return problem(field, "an uneven pipeline split needs pipeline_model_parallel_size >= 2 (it is " + str(p) + ")",
                   {"remove the field, or set pipeline_model_parallel_size >= 2"});
  int rest = L, stages = p;
  for (const auto& [f, name] : {std::pair{m.decoder_first_pipeline_num_layers, kFirst}, {m.decoder_last_pipeline_num_layers, kLast}}) {
    if (!f) continue;
    if (*f < 1) return problem(name, name.substr(6) + " must be at least 1 (it is " + str(*f) + ")", {"valid: 1.." + str(L - 1)});
    if (*f % v != 0)
      return problem(name, "number of layers at " + std::string(name == kFirst ? "first" : "last") + " stage: " + str(*f) +
                               " must be divisible by virtual pipeline parallel degree " + str(v),
                     {balanced_hint(L, p, v)});
    rest -= *f;
    --stages;
  }
  if (rest < 0 || (stages > 0 && rest < stages))
    return problem(field, "the first and last stages take " + str(L - rest) + " of num_layers (" + str(L) + "), leaving " +
                              str(rest) + " for " + str(stages) + " middle stage(s), which need at least one layer each",
                   {balanced_hint(L, p, v)});
  if (stages == 0 && rest != 0)
    return problem(field, "with pipeline_model_parallel_size 2 the first and last stages hold every layer: " +
                              str(L - rest) + " != num_layers (" + str(L) + ")",
                   {"make decoder_first_pipeline_num_layers + decoder_last_pipeline_num_layers = " + str(L)});
  if (stages > 0 && rest % stages != 0)
    return problem(field, "number of layers at middle stage: " + str(rest) + " must be divisible by the middle pipeline model parallel size " +
                              str(stages), {balanced_hint(L, p, v)});
  if (stages > 0 && (rest / stages) % v != 0)
    return problem(field, "number of layers on each middle pipeline rank: " + str(rest / stages) +
                              " must be divisible by virtual pipeline parallel degree " + str(v),
                   {balanced_hint(L, p, v)});
  return std::nullopt;
}

std::optional<PipelineSplitProblem> counted_problem(const ModelConfig& m) {
  const int p = m.pipeline_model_parallel_size, v = m.virtual_pipeline_model_parallel_size;
  const int e = m.account_for_embedding_in_pipeline_split ? 1 : 0, l = m.account_for_loss_in_pipeline_split ? 1 : 0;
  const int n = m.num_layers + e + l;
  const std::string& field = e ? kEmbedding : kLoss;
  if (n % p != 0) {
    std::string pps;
    for (int d = 2; d <= n && pps.size() < 40; ++d)
      if (n % d == 0) pps += (pps.empty() ? "" : ", ") + str(d);
    return problem(field, "num_layers + " + str(e + l) + " (" + str(n) + ", the embedding / loss counted as layers) must be divisible by pipeline_model_parallel_size " + str(p),
                   {"pipeline_model_parallel_size can be " + (pps.empty() ? std::string("1") : pps)});
  }
  if ((n / p) % v != 0)
    return problem(field, "number of layers on each pipeline rank: " + str(n / p) +
                              " (the embedding / loss counted as layers) must be divisible by virtual_pipeline_model_parallel_size " + str(v),
                   {"virtual_pipeline_model_parallel_size must divide " + str(n / p)});
  const int chunk = n / (p * v);
  if ((p == 1 && v == 1 && chunk < e + l) || chunk < std::max(e, l))
    return problem(field, "a model chunk holds " + str(chunk) + " layer(s): not enough for the embedding / loss to take one's place",
                   {"use a smaller pipeline_model_parallel_size or virtual_pipeline_model_parallel_size"});
  return std::nullopt;
}

}  // namespace

bool uneven_pipeline_split(const ModelConfig& m) {
  return m.decoder_first_pipeline_num_layers || m.decoder_last_pipeline_num_layers ||
         m.account_for_embedding_in_pipeline_split || m.account_for_loss_in_pipeline_split;
}

std::optional<PipelineSplitProblem> pipeline_split_problem(const ModelConfig& m) {
  const int L = m.num_layers, p = m.pipeline_model_parallel_size, v = m.virtual_pipeline_model_parallel_size;
  if (L < 1 || p < 1 || v < 1)
    return problem("model.num_layers", "num_layers, pipeline_model_parallel_size and virtual_pipeline_model_parallel_size must be >= 1");
  if (m.decoder_first_pipeline_num_layers || m.decoder_last_pipeline_num_layers) return first_last_problem(m);
  if (m.account_for_embedding_in_pipeline_split || m.account_for_loss_in_pipeline_split) return counted_problem(m);
  if (L % (p * v) != 0)
    return problem(v > 1 ? "model.virtual_pipeline_model_parallel_size" : "model.pipeline_model_parallel_size",
                   "num_layers (" + str(L) + ") must be divisible by pipeline_model_parallel_size x virtual_pipeline_model_parallel_size (" +
                       str(p) + " x " + str(v) + ")",
                   {"or split unevenly: decoder_first_pipeline_num_layers / decoder_last_pipeline_num_layers"});
  return std::nullopt;
}

std::vector<std::vector<int>> pipeline_split(const ModelConfig& m) {
  if (const auto pr = pipeline_split_problem(m)) throw std::invalid_argument(pr->field + ": " + pr->message);
  const int L = m.num_layers, p = m.pipeline_model_parallel_size, v = m.virtual_pipeline_model_parallel_size;
  std::vector<int> stage(static_cast<std::size_t>(p), L / p);
  if (m.decoder_first_pipeline_num_layers || m.decoder_last_pipeline_num_layers) {
    const int f = m.decoder_first_pipeline_num_layers.value_or(0), l = m.decoder_last_pipeline_num_layers.value_or(0);
    const int middle_stages = p - (f > 0) - (l > 0);
    const int middle = middle_stages > 0 ? (L - f - l) / middle_stages : 0;
    for (int& s : stage) s = middle;
    if (f > 0) stage.front() = f;
    if (l > 0) stage.back() = l;
  } else if (m.account_for_embedding_in_pipeline_split || m.account_for_loss_in_pipeline_split) {
    const int n = L + (m.account_for_embedding_in_pipeline_split ? 1 : 0) + (m.account_for_loss_in_pipeline_split ? 1 : 0);
    for (int& s : stage) s = n / p;
  }
  std::vector<std::vector<int>> out(static_cast<std::size_t>(p));
  for (int s = 0; s < p; ++s) out[static_cast<std::size_t>(s)].assign(static_cast<std::size_t>(v), stage[static_cast<std::size_t>(s)] / v);
  if (m.account_for_embedding_in_pipeline_split) --out.front().front();
  if (m.account_for_loss_in_pipeline_split) --out.back().back();
  return out;
}

std::vector<int> stage_layer_counts(const ModelConfig& m) {
  std::vector<int> out;
  for (const auto& chunks : pipeline_split(m)) {
    int n = 0;
    for (int c : chunks) n += c;
    out.push_back(n);
  }
  return out;
}

std::string pipeline_split_label(const ModelConfig& m) {
  const std::vector<int> st = stage_layer_counts(m);
  std::string out;
  for (std::size_t i = 0; i < st.size();) {
    std::size_t j = i;
    while (j < st.size() && st[j] == st[i]) ++j;
    out += (out.empty() ? "" : "/") + str(st[i]) + (j - i > 1 ? "x" + str(static_cast<long long>(j - i)) : "");
    i = j;
  }
  return out;
}

}  // namespace hcpsim
