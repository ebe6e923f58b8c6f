#include "engine/planning/sweep_runner.h"

#include "engine/core/child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <algorithm>
#include <ostream>
#include <set>
#include <stdexcept>

namespace hcpsim::planning {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

struct Worker {
  std::size_t point = 0;
  int fd = -1;
  std::string buffer;
  Clock::time_point start;
  bool timed_out = false;
};

// Child side: evaluate, write one JSON line, leave without running atexit handlers.
[[noreturn]] void run_child(const SweepPoint& p, const std::vector<std::string>& columns,
                            const PointEvaluator& evaluate, int fd) {
  const auto t0 = Clock::now();
  PointResult r;
  try {
    r = evaluate(p);
  } catch (const std::exception& e) {
    r = PointResult{};
    r.status = PointStatus::Error;
    r.message = e.what();
  } catch (...) {
    r = PointResult{};
    r.status = PointStatus::Error;
    r.message = "unknown exception";
  }
  r.labels = p.labels;
  if (r.wall_s <= 0) r.wall_s = seconds_since(t0);
  const std::string line = to_json(r, columns).dump() + "\n";
  if (!write_all(fd, line.data(), line.size())) _exit(3);
  ::close(fd);
  _exit(0);
}

PointResult failed(const SweepPoint& p, std::string why) {
  PointResult r;
  r.labels = p.labels;
  r.status = PointStatus::Error;
  r.message = std::move(why);
  return r;
}

class Progress {
 public:
  Progress(std::ostream* os, bool tty, std::size_t total) : os_(os), tty_(tty), total_(total) {}
  void update(std::size_t done, std::size_t bad, bool final) {
    if (!os_ || total_ == 0) return;
    const double t = seconds_since(t0_);
    const int decile = static_cast<int>(10 * done / total_);
    if (!final && (tty_ ? t - last_ < 0.1 : decile == last_decile_)) return;
    last_ = t;
    last_decile_ = decile;
    const double rate = t > 0 ? done / t : 0;
    const double eta = rate > 0 ? (total_ - done) / rate : 0;
    constexpr int kWidth = 30;
    const int fill = static_cast<int>(kWidth * done / total_);
    char buf[160];
    std::snprintf(buf, sizeof buf, "[%s%s] %zu/%zu  %zu invalid/failed  %.1f pts/s  ETA %.0f s",
                  std::string(fill, '#').c_str(), std::string(kWidth - fill, '.').c_str(), done,
                  total_, bad, rate, eta);
    if (tty_) {
      *os_ << '\r' << buf << (final ? "\n" : "") << std::flush;
    } else {
      *os_ << "sweep: " << buf << '\n' << std::flush;
    }
  }

 private:
  std::ostream* os_;
  bool tty_;
  std::size_t total_;
  Clock::time_point t0_ = Clock::now();
  double last_ = -1;
  int last_decile_ = -1;
};

// Prepares the output file: with resume, cut a partial last line; otherwise (or when new) write the header.
void prepare_output(const std::string& path, const std::vector<std::string>& columns, bool resume,
                    bool has_rows, const std::string& preamble) {
  namespace fs = std::filesystem;
  const bool exists = fs::exists(path);
  if (resume && exists) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto nl = text.find_last_of('\n');
    const std::size_t keep = nl == std::string::npos ? 0 : nl + 1;
    if (keep != text.size()) fs::resize_file(path, keep);
    if (keep > 0 || has_rows) return;
  }
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw std::runtime_error(path + ": cannot write the sweep results file");
  if (!preamble.empty()) out << preamble << '\n';
  if (file_format_for(path) == FileFormat::Csv) out << csv_header(columns) << '\n';
}

// Results in the order of `points` (matched by key); rows of the file that are no point of this
// sweep keep their order after them.
void sort_by_point(std::vector<PointResult>& rs, const std::vector<SweepPoint>& points,
                   const std::vector<std::string>& columns) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < points.size(); ++i) position.emplace(points[i].key(columns), i);
  std::vector<std::pair<std::size_t, PointResult>> keyed;
  keyed.reserve(rs.size());
  for (PointResult& r : rs) {
    SweepPoint tmp;
    tmp.labels = r.labels;
    const auto it = position.find(tmp.key(columns));
    keyed.emplace_back(it == position.end() ? points.size() : it->second, std::move(r));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < rs.size(); ++i) rs[i] = std::move(keyed[i].second);
}

}  // namespace

SweepOutcome run_sweep(const std::vector<SweepPoint>& points, const std::vector<std::string>& columns,
                       const PointEvaluator& evaluate, const SweepRunOptions& options) {
  if (options.jobs < 0) throw std::invalid_argument("jobs must be >= 0 (0 = number of CPUs)");
  const auto t0 = Clock::now();
  PointDistribution* dist = is_distributed(options.distribution) ? options.distribution : nullptr;
  const bool root = dist == nullptr || dist->rank() == 0;
  SweepOutcome outcome;
  std::set<std::string> done_keys;
  std::ofstream out;
  const FileFormat fmt = file_format_for(options.out_path);
  const bool writes = root && !options.out_path.empty();
  std::vector<std::size_t> todo;
  if (root) {
    if (options.resume && !options.out_path.empty()) {
      for (PointResult& r : read_results_file(options.out_path, columns)) {
        SweepPoint tmp;
        tmp.labels = r.labels;
        done_keys.insert(tmp.key(columns));
        outcome.results.push_back(std::move(r));
      }
      outcome.resumed = outcome.results.size();
    }
    if (writes) {
      prepare_output(options.out_path, columns, options.resume, !outcome.results.empty(), options.preamble);
      out.open(options.out_path, std::ios::app);
      if (!out) throw std::runtime_error(options.out_path + ": cannot append to the sweep results file");
    }
    for (std::size_t i = 0; i < points.size(); ++i)
      if (!done_keys.count(points[i].key(columns))) todo.push_back(i);
  }
  std::map<std::string, std::size_t> position;   // point key -> index in `points` (rank 0 of a distribution)
  std::vector<std::size_t> mine = todo;
  if (dist != nullptr) {
    todo = decode_indices(dist->broadcast(root ? encode_indices(todo) : std::string()));
    for (std::size_t i : todo)
      if (i >= points.size())
        throw std::runtime_error("rank 0 sent point " + std::to_string(i) + " but this rank has " +
                                 std::to_string(points.size()) + " points: the ranks expanded different sweeps");
    mine = round_robin_share(todo, dist->rank(), dist->size());
    if (root)
      for (std::size_t i : todo) position.emplace(points[i].key(columns), i);
  }

  long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  const std::size_t jobs = options.jobs > 0 ? static_cast<std::size_t>(options.jobs)
                                            : static_cast<std::size_t>(cpus > 0 ? cpus : 1);
  Progress progress(root ? options.progress : nullptr, options.progress_tty, todo.size());
  std::size_t bad = 0;
  std::map<pid_t, Worker> active;
  std::size_t next = 0;

  auto record = [&](PointResult r) {
    if (r.status != PointStatus::Ok) ++bad;
    if (!root) {
      dist->send_result(to_json(r, columns).dump());
    } else if (out.is_open()) {
      out << (fmt == FileFormat::Csv ? csv_row(r) : to_json(r, columns).dump()) << '\n';
      out.flush();
    }
    outcome.results.push_back(std::move(r));
    ++outcome.evaluated;
    progress.update(outcome.evaluated, bad, false);
  };
  // Rank 0: results of the other ranks, recorded as they come.
  auto collect = [&] {
    for (const std::string& line : dist->poll_results()) {
      PointResult r;
      try {
        r = point_from_json(nlohmann::json::parse(line), columns);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("a result from another rank is malformed: ") + e.what());
      }
      SweepPoint tmp;
      tmp.labels = r.labels;
      if (!position.count(tmp.key(columns)))
        throw std::runtime_error("another rank sent point " + tmp.key(columns) + ", which is not to be run");
      record(std::move(r));
    }
  };
  const int finished_before = dist != nullptr && root ? dist->finished_ranks() : 0;
  auto remote_pending = [&] {
    return dist != nullptr && root && dist->finished_ranks() - finished_before < dist->size() - 1;
  };

  while (next < mine.size() || !active.empty() || remote_pending()) {
    while (next < mine.size() && active.size() < jobs) {
      const SweepPoint& p = points[mine[next]];
      if (out.is_open()) out.flush();
      std::vector<int> others;
      for (auto& [_, w] : active) others.push_back(w.fd);
      ChildProcess child;
      try {
        child = fork_child([&](int fd) -> int { run_child(p, columns, evaluate, fd); }, false, others, "sweep");
      } catch (const std::runtime_error&) {
        if (active.empty()) throw;
        break;   // retry when a worker finishes
      }
      const pid_t pid = child.pid;
      Worker w;
      w.point = mine[next];
      w.fd = child.result_fd;
      w.start = Clock::now();
      active.emplace(pid, std::move(w));
      ++next;
    }

    std::vector<int> fds;
    std::vector<pid_t> pids;
    for (auto& [pid, w] : active) {
      fds.push_back(w.fd);
      pids.push_back(pid);
    }
    // Under a distribution rank 0 also watches the other ranks, so it wakes up more often.
    const std::vector<bool> ready = poll_readable(fds, dist != nullptr && root ? 20 : 200, "sweep");
    for (std::size_t i = 0; i < fds.size(); ++i) {
      Worker& w = active.at(pids[i]);
      const bool eof = ready[i] && !read_available(w.fd, w.buffer);
      if (!eof && options.point_timeout_s > 0 && !w.timed_out &&
          seconds_since(w.start) > options.point_timeout_s) {
        ::kill(pids[i], SIGKILL);
        w.timed_out = true;
      }
      if (!eof) continue;
      ::close(w.fd);
      const int status = reap_child(pids[i]);
      const SweepPoint& p = points[w.point];
      PointResult r;
      if (w.timed_out) {
        r = failed(p, "timed out after " + std::to_string(options.point_timeout_s) + " s");
      } else if (WIFSIGNALED(status)) {
        r = failed(p, "worker " + describe_abnormal_exit(status));
      } else {
        try {
          r = point_from_json(nlohmann::json::parse(w.buffer), columns);
        } catch (const std::exception&) {
          r = failed(p, "worker exited with status " +
                            std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                            " without a result");
        }
      }
      active.erase(pids[i]);
      record(std::move(r));
    }
    if (dist != nullptr && root) collect();
  }
  if (!root) dist->send_done();
  progress.update(outcome.evaluated, bad, true);
  if (root) {
    sort_by_point(outcome.results, points, columns);
    if (writes) {
      out.close();
      write_results_file(options.out_path, outcome.results, columns, options.preamble);
    }
  }
  outcome.wall_s = seconds_since(t0);
  return outcome;
}

}  // namespace hcpsim::planning
