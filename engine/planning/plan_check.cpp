#include "engine/planning/plan_check.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

#include "engine/memory/memory_items.h"

namespace hcpsim::planning {
namespace {

// A validation message with every number written as N, so that one rule counts as one class
// (digits inside words such as "a2a" stay).
std::string without_numbers(const std::string& m) {
  auto alpha = [&](std::size_t i) { return i < m.size() && std::isalpha(static_cast<unsigned char>(m[i])); };
  std::string out;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(m[i])) || (i > 0 && alpha(i - 1))) {
      out += m[i];
      continue;
    }
    std::size_t j = i;
    while (j + 1 < m.size() && (std::isdigit(static_cast<unsigned char>(m[j + 1])) || m[j + 1] == '.')) ++j;
    if (alpha(j + 1)) {
      out += m.substr(i, j - i + 1);
    } else {
      out += 'N';
    }
    i = j;
  }
  return out;
}

// "activations dominate" style class of an out-of-memory configuration.
std::string largest_memory_item(const MemoryEstimate& m) {
  const std::vector<MemoryItem> items = memory_items(m);
  const MemoryItem* best = nullptr;
  for (const MemoryItem& it : items)
    if (!it.fixed_overhead && (best == nullptr || it.bytes > best->bytes)) best = &it;
  std::string name = best->name;
  std::replace(name.begin(), name.end(), '_', ' ');   // "optimizer states"
  return "largest item: " + name;
}

enum class Kind { Kept, Invalid, OutOfMemory };

struct Verdict {
  Kind kind = Kind::Kept;
  std::string why;
  MemoryEstimate memory;   // kept: the whole estimate
  double bytes = 0;        // out of memory: the total
};

Verdict check_one(const Scenario& base, const PlanCandidate& c, int gpus, const PlanOptions& options,
                  const ScenarioValidator& validate) {
  Verdict v;
  const Scenario s = apply_candidate(base, c, gpus);
  const Diagnostics d = validate(s);
  if (d.has_errors()) {
    v.kind = Kind::Invalid;
    v.why = "invalid";
    for (const Diagnostic& x : d.items())
      if (x.severity == Severity::Error) {
        v.why = x.path + ": " + without_numbers(x.message);
        break;
      }
    return v;
  }
  v.memory = estimate_memory(s, options.memory);
  if (!v.memory.fits) {
    v.kind = Kind::OutOfMemory;
    v.why = largest_memory_item(v.memory);
    v.bytes = v.memory.total_bytes;
  }
  return v;
}

void count_miss(PlanOutcome& out, const PlanCandidate& c, double bytes, double capacity, std::size_t keep) {
  ++out.out_of_memory;
  auto& m = out.closest_misses;
  const auto at = std::find_if(m.begin(), m.end(), [&](const PlanMiss& x) { return bytes < x.total_bytes; });
  if (at == m.end() && m.size() >= keep) return;
  m.insert(at, PlanMiss{c, bytes, capacity, std::nullopt});
  if (m.size() > keep) m.pop_back();
}

}  // namespace

void for_each_index(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  const std::size_t t = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, threads)));
  if (t <= 1) {
    for (std::size_t k = 0; k < n; ++k) fn(k);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  auto work = [&] {
    try {
      for (std::size_t k = next++; k < n && !failed; k = next++) fn(k);
    } catch (...) {
      if (!failed.exchange(true)) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < t; ++i) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

CheckedCandidates check_candidates(const Scenario& base, const std::vector<PlanCandidate>& all,
                                   const std::vector<std::size_t>& which, int gpus, const PlanOptions& options,
                                   const ScenarioValidator& validate, PlanOutcome& out, bool root) {
  std::vector<Verdict> verdicts(which.size());
  const std::size_t report_every = std::max<std::size_t>(1, which.size() / 20);
  std::atomic<std::size_t> done{0};
  const std::thread::id caller = std::this_thread::get_id();
  for_each_index(which.size(), options.threads, [&](std::size_t k) {
    verdicts[k] = check_one(base, all[which[k]], gpus, options, validate);
    const std::size_t n = ++done;
    // Only the calling thread reports (the callback need not be thread-safe).
    if (options.progress && k % report_every == 0 && std::this_thread::get_id() == caller)
      options.progress(std::min(all.size(), n * all.size() / std::max<std::size_t>(1, which.size())), all.size(), 0);
  });
  CheckedCandidates c;
  const double capacity = base.cluster.gpu.memory_bytes;
  for (std::size_t k = 0; k < which.size(); ++k) {
    Verdict& v = verdicts[k];
    const std::size_t i = which[k];
    if (!root) {
      nlohmann::json j{{"i", i}};
      if (v.kind == Kind::Invalid) j["invalid"] = v.why;
      if (v.kind == Kind::OutOfMemory) j["oom"] = v.why, j["bytes"] = v.bytes;
      c.verdicts.push_back(j.dump());
    } else if (v.kind == Kind::Invalid) {
      ++out.invalid;
      ++out.invalid_reasons[v.why];
    } else if (v.kind == Kind::OutOfMemory) {
      ++out.out_of_memory_reasons[v.why];
      count_miss(out, all[i], v.bytes, capacity, options.misses);
    }
    if (v.kind == Kind::Kept) c.kept.push_back({i, std::move(v.memory)});
  }
  return c;
}

std::optional<std::size_t> count_verdict(const std::string& line, const std::vector<PlanCandidate>& all,
                                         double capacity_bytes, std::size_t keep_misses, PlanOutcome& out) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("a verdict from another rank is malformed: ") + e.what());
  }
  const std::size_t i = j.at("i").get<std::size_t>();
  if (i >= all.size()) throw std::runtime_error("a verdict from another rank names candidate " + std::to_string(i));
  if (j.contains("invalid")) {
    ++out.invalid;
    ++out.invalid_reasons[j.at("invalid").get<std::string>()];
  } else if (j.contains("oom")) {
    ++out.out_of_memory_reasons[j.at("oom").get<std::string>()];
    count_miss(out, all[i], j.value("bytes", 0.0), capacity_bytes, keep_misses);
  } else {
    return i;
  }
  return std::nullopt;
}

}  // namespace hcpsim::planning
