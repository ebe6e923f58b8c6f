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

// Key of a result row, as SweepPoint::key gives it for a point of the same labels.
std::string key_of(const PointResult& r, const std::vector<std::string>& columns) {
  SweepPoint tmp;
  tmp.labels = r.labels;
  return tmp.key(columns);
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
    const auto it = position.find(key_of(r, columns));
    keyed.emplace_back(it == position.end() ? points.size() : it->second, std::move(r));
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < rs.size(); ++i) rs[i] = std::move(keyed[i].second);
}

// One run of run_sweep: the results so far and the output file (rank 0), the points this process
// evaluates, and its worker processes.
class SweepRun {
 public:
  SweepRun(const std::vector<SweepPoint>& points, const std::vector<std::string>& columns,
           const PointEvaluator& evaluate, const SweepRunOptions& options)
      : points_(points), columns_(columns), evaluate_(evaluate), options_(options),
        dist_(is_distributed(options.distribution) ? options.distribution : nullptr),
        root_(dist_ == nullptr || dist_->rank() == 0), fmt_(file_format_for(options.out_path)),
        writes_(root_ && !options.out_path.empty()) {}

  SweepOutcome run() {
    const auto t0 = Clock::now();
    std::vector<std::size_t> todo = root_ ? resume_and_open() : std::vector<std::size_t>{};
    share_points(todo);
    long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    jobs_ = options_.jobs > 0 ? static_cast<std::size_t>(options_.jobs) : static_cast<std::size_t>(cpus > 0 ? cpus : 1);
    progress_ = Progress(root_ ? options_.progress : nullptr, options_.progress_tty, todo.size());
    finished_before_ = dist_ != nullptr && root_ ? dist_->finished_ranks() : 0;
    while (next_ < mine_.size() || !active_.empty() || remote_pending()) {
      start_workers();
      reap_workers();
      if (dist_ != nullptr && root_) collect();
    }
    if (!root_) dist_->send_done();
    progress_.update(outcome_.evaluated, bad_, true);
    if (root_) {
      sort_by_point(outcome_.results, points_, columns_);
      if (writes_) {
        out_.close();
        write_results_file(options_.out_path, outcome_.results, columns_, options_.preamble);
      }
    }
    outcome_.wall_s = seconds_since(t0);
    return std::move(outcome_);
  }

 private:
  // Rank 0: takes the rows of the output file (with resume), opens it for appending, and returns
  // the points not done yet.
  std::vector<std::size_t> resume_and_open() {
    std::set<std::string> done_keys;
    if (options_.resume && !options_.out_path.empty()) {
      for (PointResult& r : read_results_file(options_.out_path, columns_)) {
        done_keys.insert(key_of(r, columns_));
        outcome_.results.push_back(std::move(r));
      }
      outcome_.resumed = outcome_.results.size();
    }
    if (writes_) {
      prepare_output(options_.out_path, columns_, options_.resume, !outcome_.results.empty(), options_.preamble);
      out_.open(options_.out_path, std::ios::app);
      if (!out_) throw std::runtime_error(options_.out_path + ": cannot append to the sweep results file");
    }
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < points_.size(); ++i)
      if (!done_keys.count(points_[i].key(columns_))) todo.push_back(i);
    return todo;
  }

  // The points this process evaluates: all of `todo`, or under a distribution its share of rank 0's.
  void share_points(std::vector<std::size_t>& todo) {
    mine_ = todo;
    if (dist_ == nullptr) return;
    todo = decode_indices(dist_->broadcast(root_ ? encode_indices(todo) : std::string()));
    for (std::size_t i : todo)
      if (i >= points_.size())
        throw std::runtime_error("rank 0 sent point " + std::to_string(i) + " but this rank has " +
                                 std::to_string(points_.size()) + " points: the ranks expanded different sweeps");
    mine_ = round_robin_share(todo, dist_->rank(), dist_->size());
    if (root_)
      for (std::size_t i : todo) position_.emplace(points_[i].key(columns_), i);
  }

  void record(PointResult r) {
    if (r.status != PointStatus::Ok) ++bad_;
    if (!root_) {
      dist_->send_result(to_json(r, columns_).dump());
    } else if (out_.is_open()) {
      out_ << (fmt_ == FileFormat::Csv ? csv_row(r) : to_json(r, columns_).dump()) << '\n';
      out_.flush();
    }
    outcome_.results.push_back(std::move(r));
    ++outcome_.evaluated;
    progress_.update(outcome_.evaluated, bad_, false);
  }

  // Rank 0: results of the other ranks, recorded as they come.
  void collect() {
    for (const std::string& line : dist_->poll_results()) {
      PointResult r;
      try {
        r = point_from_json(nlohmann::json::parse(line), columns_);
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("a result from another rank is malformed: ") + e.what());
      }
      if (!position_.count(key_of(r, columns_)))
        throw std::runtime_error("another rank sent point " + key_of(r, columns_) + ", which is not to be run");
      record(std::move(r));
    }
  }

  bool remote_pending() const {
    return dist_ != nullptr && root_ && dist_->finished_ranks() - finished_before_ < dist_->size() - 1;
  }

  // Forks workers for the next points until `jobs` run (or a fork fails while others run).
  void start_workers() {
    while (next_ < mine_.size() && active_.size() < jobs_) {
      const SweepPoint& p = points_[mine_[next_]];
      if (out_.is_open()) out_.flush();
      std::vector<int> others;
      for (auto& [_, w] : active_) others.push_back(w.fd);
      ChildProcess child;
      try {
        child = fork_child([&](int fd) -> int { run_child(p, columns_, evaluate_, fd); }, false, others, "sweep");
      } catch (const std::runtime_error&) {
        if (active_.empty()) throw;
        return;   // retry when a worker finishes
      }
      Worker w;
      w.point = mine_[next_];
      w.fd = child.result_fd;
      w.start = Clock::now();
      active_.emplace(child.pid, std::move(w));
      ++next_;
    }
  }

  // Waits a little for the workers' output; records the result of each worker that has finished
  // and kills one past the point timeout.
  void reap_workers() {
    std::vector<int> fds;
    std::vector<pid_t> pids;
    for (auto& [pid, w] : active_) {
      fds.push_back(w.fd);
      pids.push_back(pid);
    }
    // Under a distribution rank 0 also watches the other ranks, so it wakes up more often.
    const std::vector<bool> ready = poll_readable(fds, dist_ != nullptr && root_ ? 20 : 200, "sweep");
    for (std::size_t i = 0; i < fds.size(); ++i) {
      Worker& w = active_.at(pids[i]);
      const bool eof = ready[i] && !read_available(w.fd, w.buffer);
      if (!eof && options_.point_timeout_s > 0 && !w.timed_out && seconds_since(w.start) > options_.point_timeout_s) {
        ::kill(pids[i], SIGKILL);
        w.timed_out = true;
      }
      if (!eof) continue;
      ::close(w.fd);
      PointResult r = result_of(w, reap_child(pids[i]));
      active_.erase(pids[i]);
      record(std::move(r));
    }
  }

  // The result a finished worker left, or why it left none.
  PointResult result_of(const Worker& w, int status) const {
    const SweepPoint& p = points_[w.point];
    if (w.timed_out) return failed(p, "timed out after " + std::to_string(options_.point_timeout_s) + " s");
    if (WIFSIGNALED(status)) return failed(p, "worker " + describe_abnormal_exit(status));
    try {
      return point_from_json(nlohmann::json::parse(w.buffer), columns_);
    } catch (const std::exception&) {
      return failed(p, "worker exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                           " without a result");
    }
  }

  const std::vector<SweepPoint>& points_;
  const std::vector<std::string>& columns_;
  const PointEvaluator& evaluate_;
  const SweepRunOptions& options_;
  PointDistribution* dist_;
  bool root_;
  FileFormat fmt_;
  bool writes_;
  SweepOutcome outcome_;
  std::ofstream out_;
  std::map<std::string, std::size_t> position_;   // point key -> index in `points` (rank 0 of a distribution)
  std::vector<std::size_t> mine_;                 // indices of the points this process evaluates
  std::size_t next_ = 0;                          // next of mine_ to start
  std::size_t jobs_ = 1;
  Progress progress_{nullptr, false, 0};
  std::size_t bad_ = 0;
  std::map<pid_t, Worker> active_;
  int finished_before_ = 0;
};

}  // namespace

SweepOutcome run_sweep(const std::vector<SweepPoint>& points, const std::vector<std::string>& columns,
                       const PointEvaluator& evaluate, const SweepRunOptions& options) {
  if (options.jobs < 0) throw std::invalid_argument("jobs must be >= 0 (0 = number of CPUs)");
  return SweepRun(points, columns, evaluate, options).run();
}

}  // namespace hcpsim::planning
