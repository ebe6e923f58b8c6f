#pragma once
// Spreading the points of a sweep (or the predictions of a plan) over cooperating processes, such
// as the ranks of an `mpirun` job. Rank 0 decides which points are still to do, every rank
// evaluates its share (forking its points as a single process would), and rank 0 collects the
// results and writes the output. The engine knows only this interface; the MPI implementation lives
// in the command line program (cli/), so that engine/ stays free of MPI.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "engine/planning/sweep_result.h"

namespace hcpsim::planning {

class PointDistribution {
 public:
  virtual ~PointDistribution() = default;
  virtual int rank() const = 0;   // 0 collects and writes
  virtual int size() const = 0;   // number of cooperating processes (>= 1)
  // Collective: every rank returns rank 0's `text` (the value other ranks pass is ignored).
  virtual std::string broadcast(const std::string& text) = 0;
  // Rank > 0: one finished result, a JSON line, sent to rank 0.
  virtual void send_result(const std::string& json_line) = 0;
  // Rank > 0: this rank has sent all its results (call once, last).
  virtual void send_done() = 0;
  // Rank 0: the result lines that have arrived since the last call; never waits.
  virtual std::vector<std::string> poll_results() = 0;
  // Rank 0: how many send_done() calls have arrived so far, in all (a job may gather several times:
  // callers count from the value they saw when they started).
  virtual int finished_ranks() const = 0;
};

// True when `d` is given and has more than one rank (a one-rank job behaves as a plain run).
bool is_distributed(const PointDistribution* d);

// The positions in `todo` this rank evaluates: todo[k] for every k with k mod size == rank. Rank 0
// chooses `todo` (the points not already in the output file), so the shares stay balanced after a
// resume.
std::vector<std::size_t> round_robin_share(const std::vector<std::size_t>& todo, int rank, int size);

// Point indices as text for broadcast(), and back. decode_indices throws std::runtime_error on
// malformed text.
std::string encode_indices(const std::vector<std::size_t>& indices);
std::vector<std::size_t> decode_indices(const std::string& text);

// Rank > 0: sends `mine` (lines without '\n', batched into few messages) to rank 0, then
// send_done(), and returns nothing. Rank 0:
// returns the lines of every other rank (in arrival order; `mine` is not included), waiting until
// each of them has called send_done() once more than when this call began.
std::vector<std::string> gather_on_root(const std::vector<std::string>& mine, PointDistribution& d);

// Evaluates `n` items: item i belongs to rank owner[i]. Every rank computes its own share with
// `compute_share` (given its item indices, ascending; returns one result per index, in that order),
// then the ranks other than 0 send theirs to rank 0 as JSON lines (labels = {"i"}). Rank 0 returns
// all n results in index order; other ranks return only their own (the rest default-constructed).
// Throws std::runtime_error when a received line is malformed or names an unknown item, and
// std::invalid_argument when owner has not n entries or compute_share returns a wrong count.
using ShareEvaluator = std::function<std::vector<PointResult>(const std::vector<std::size_t>&)>;
std::vector<PointResult> evaluate_distributed(std::size_t n, const std::vector<int>& owner,
                                              const ShareEvaluator& compute_share, PointDistribution& d);

}  // namespace hcpsim::planning
