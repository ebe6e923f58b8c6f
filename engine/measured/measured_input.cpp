#include "engine/measured/measured_input.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "engine/measured/gzip_stream.h"
#include "engine/measured/kineto_reader.h"
#include "engine/measured/nsys_reader.h"

namespace hcpsim {
namespace {

namespace fs = std::filesystem;

bool ends_with(const std::string& s, const char* tail) {
  const std::string t(tail);
  return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

// Splits "path@N" into the path and N (-1 when there is no valid suffix or the whole text is a file).
std::pair<std::string, int> split_rank(const std::string& input) {
  const auto at = input.find_last_of('@');
  if (at == std::string::npos || at + 1 == input.size() || fs::exists(input)) return {input, -1};
  const std::string tail = input.substr(at + 1);
  if (!std::all_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; }) || tail.size() > 7)
    throw std::runtime_error(input + ": '@" + tail + "' after a path must be a rank number (trace.json@3)");
  return {input.substr(0, at), std::stoi(tail)};
}

}  // namespace

const char* to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::Hcpsim: return "hcpsim";
    case TraceFormat::Kineto: return "kineto";
    case TraceFormat::Nsys: return "nsys";
  }
  return "?";
}

TraceFormat detect_trace_format(const std::string& path) {
  if (is_sqlite_file(path)) return TraceFormat::Nsys;
  const std::string head = read_file_head(path, 4096);
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string::npos || (head[first] != '{' && head[first] != '['))
    throw std::runtime_error(path + ": not a trace: expected a PyTorch profiler trace (JSON, plain or gzip), an "
                             "Nsight Systems SQLite export or an hcpsim trace");
  if (head.find("\"otherData\":{\"scenario\"") != std::string::npos) return TraceFormat::Hcpsim;
  return TraceFormat::Kineto;
}

bool is_hcpsim_trace_file(const std::string& input) {
  std::error_code ec;
  return fs::is_regular_file(input, ec) && detect_trace_format(input) == TraceFormat::Hcpsim;
}

std::vector<std::string> expand_measured_inputs(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& input : inputs) {
    const auto [path, rank] = split_rank(input);
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      if (rank >= 0) throw std::runtime_error(input + ": @N names the rank of one file, not of a folder");
      std::vector<std::string> files;
      for (const auto& e : fs::directory_iterator(path, ec)) {
        const std::string p = e.path().string();
        if (e.is_regular_file() && (ends_with(p, ".json") || ends_with(p, ".json.gz") || ends_with(p, ".sqlite")))
          files.push_back(p);
      }
      if (ec) throw std::runtime_error(path + ": cannot list the folder: " + ec.message());
      if (files.empty()) throw std::runtime_error(path + ": the folder holds no trace (*.json, *.json.gz, *.sqlite)");
      std::sort(files.begin(), files.end());
      out.insert(out.end(), files.begin(), files.end());
    } else if (fs::is_regular_file(path, ec)) {
      out.push_back(input);
    } else {
      throw std::runtime_error(path + ": no such file or folder");
    }
  }
  return out;
}

MeasuredRun read_measured_run(const std::vector<std::string>& inputs, const KernelClassifier& classifier) {
  MeasuredRun run;
  NameTable names(run.names);
  std::vector<std::int8_t> cache;
  std::map<int, std::string> seen;   // rank -> file
  int world = 0;
  for (const auto& input : expand_measured_inputs(inputs)) {
    const auto [path, hint] = split_rank(input);
    const TraceFormat f = detect_trace_format(path);
    if (f == TraceFormat::Hcpsim)
      throw std::runtime_error(path + ": is an hcpsim trace; give it alone as the measured trace (it is compared "
                               "task by task), not among profiler traces");
    if (!run.format.empty() && run.format != to_string(f))
      throw std::runtime_error(path + ": is a " + std::string(to_string(f)) + " file among " + run.format +
                               " files: give the traces of one profiler");
    run.format = to_string(f);
    std::vector<MeasuredRank> ranks;
    if (f == TraceFormat::Nsys) {
      ranks = read_nsys_sqlite(path, hint, classifier, names, cache);
    } else {
      KinetoRank k = read_kineto_trace(path, hint, classifier, names, cache);
      world = std::max(world, k.world_size);
      if (k.rank_from != "distributedInfo") run.notes.push_back(path + ": rank " + std::to_string(k.rank.rank) + " from the " + k.rank_from);
      ranks.push_back(std::move(k.rank));
    }
    for (auto& r : ranks) {
      auto [it, fresh] = seen.emplace(r.rank, path);
      if (!fresh) throw std::runtime_error(path + ": rank " + std::to_string(r.rank) + " is also in " + it->second + ": give one trace per rank");
      run.ranks.push_back(std::move(r));
    }
  }
  std::sort(run.ranks.begin(), run.ranks.end(), [](const auto& a, const auto& b) { return a.rank < b.rank; });
  run.world_size = std::max(world, run.ranks.empty() ? 0 : run.ranks.back().rank + 1);
  return run;
}

}  // namespace hcpsim
