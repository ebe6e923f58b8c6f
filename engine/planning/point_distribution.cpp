#include "engine/planning/point_distribution.h"

#include <chrono>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace hcpsim::planning {

bool is_distributed(const PointDistribution* d) { return d != nullptr && d->size() > 1; }

std::vector<std::size_t> round_robin_share(const std::vector<std::size_t>& todo, int rank, int size) {
  if (size < 1 || rank < 0 || rank >= size)
    throw std::invalid_argument("rank " + std::to_string(rank) + " of " + std::to_string(size) +
                                ": the rank must be in 0..size-1");
  std::vector<std::size_t> mine;
  for (std::size_t k = static_cast<std::size_t>(rank); k < todo.size(); k += static_cast<std::size_t>(size))
    mine.push_back(todo[k]);
  return mine;
}

std::string encode_indices(const std::vector<std::size_t>& indices) {
  std::string s;
  for (std::size_t i = 0; i < indices.size(); ++i) s += (i ? " " : "") + std::to_string(indices[i]);
  return s;
}

std::vector<std::size_t> decode_indices(const std::string& text) {
  std::vector<std::size_t> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (word.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("point list from rank 0: '" + word + "' is not a point index");
    out.push_back(std::stoull(word));
  }
  return out;
}

std::vector<PointResult> evaluate_distributed(std::size_t n, const std::vector<int>& owner,
                                              const ShareEvaluator& compute_share, PointDistribution& d) {
  if (owner.size() != n)
    throw std::invalid_argument("evaluate_distributed: " + std::to_string(owner.size()) + " owners for " +
                                std::to_string(n) + " items");
  std::vector<std::size_t> mine;
  for (std::size_t i = 0; i < n; ++i)
    if (owner[i] == d.rank()) mine.push_back(i);
  const std::vector<PointResult> own = compute_share(mine);
  if (own.size() != mine.size())
    throw std::invalid_argument("evaluate_distributed: " + std::to_string(own.size()) + " results for " +
                                std::to_string(mine.size()) + " items");
  std::vector<PointResult> results(n);
  for (std::size_t k = 0; k < mine.size(); ++k) results[mine[k]] = own[k];
  std::vector<std::string> lines;
  if (d.rank() != 0) {
    for (std::size_t k = 0; k < mine.size(); ++k) {
      PointResult r = own[k];
      r.labels = {std::to_string(mine[k])};
      lines.push_back(to_json(r, {"item"}).dump());
    }
  }
  for (const std::string& line : gather_on_root(lines, d)) {
    PointResult r;
    try {
      r = point_from_json(nlohmann::json::parse(line), {"item"});
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("a result from another rank is malformed: ") + e.what());
    }
    const std::string& label = r.labels.at(0);
    if (label.empty() || label.find_first_not_of("0123456789") != std::string::npos || std::stoull(label) >= n)
      throw std::runtime_error("a result from another rank names item '" + label + "', not one of 0.." +
                               std::to_string(n - 1));
    results[std::stoull(label)] = std::move(r);
  }
  return results;
}

std::vector<std::string> gather_on_root(const std::vector<std::string>& mine, PointDistribution& d) {
  // Lines travel in batches of about 1 MB joined by '\n' (JSON lines hold no raw newline): tens of
  // thousands of tiny messages would cost more than the work they report.
  constexpr std::size_t kBatchBytes = 1 << 20;
  if (d.rank() != 0) {
    std::string batch;
    for (const std::string& line : mine) {
      if (line.empty() || line.find('\n') != std::string::npos)
        throw std::invalid_argument("gather_on_root: a line is empty or holds a newline");
      batch += line;
      batch += '\n';
      if (batch.size() >= kBatchBytes) {
        d.send_result(batch);
        batch.clear();
      }
    }
    if (!batch.empty()) d.send_result(batch);
    d.send_done();
    return {};
  }
  const int start = d.finished_ranks();
  std::vector<std::string> lines;
  for (;;) {
    for (const std::string& batch : d.poll_results()) {
      std::istringstream in(batch);
      std::string line;
      while (std::getline(in, line))
        if (!line.empty()) lines.push_back(line);
    }
    if (d.finished_ranks() - start >= d.size() - 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return lines;
}

}  // namespace hcpsim::planning
