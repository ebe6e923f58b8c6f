// The MPI implementation of the point distribution: results travel to rank 0 as strings on one tag,
// an empty message says that a rank is done. Only C MPI calls; no thread support is needed because
// every MPI call is made by the main thread (the point workers are forked and never touch MPI).
#include "cli/mpi_job.h"

#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdlib>
#include <iostream>
#include <deque>
#include <memory>
#include <stdexcept>

namespace hcpsim::cli {
namespace {

constexpr int kResultTag = 7301;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, static_cast<std::size_t>(len)));
}

class OpenMpiJob final : public MpiJob {
 public:
  OpenMpiJob() {
    // libsimgrid exports MPI_* too (SMPI); calling it with OpenMPI's handles would crash. The link
    // order (cli/CMakeLists.txt) puts libmpi first; check that it worked.
    Dl_info where{};
    if (::dladdr(reinterpret_cast<void*>(&MPI_Init), &where) != 0 && where.dli_fname != nullptr &&
        std::string(where.dli_fname).find("simgrid") != std::string::npos)
      throw std::runtime_error(std::string("MPI_Init resolves to ") + where.dli_fname +
                               " (SimGrid's SMPI), not to OpenMPI: hcpsim was linked with SimGrid before MPI");
    int ready = 0;
    MPI_Initialized(&ready);
    if (!ready) check(MPI_Init(nullptr, nullptr), "MPI_Init");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
          "MPI_Comm_split_type");
    check(MPI_Comm_size(node, &node_size_), "MPI_Comm_size (node)");
    MPI_Comm_free(&node);
  }
  ~OpenMpiJob() override {
    int done = 0;
    MPI_Finalized(&done);
    if (done) return;
    // Ranks that finish early wait here for the others without spinning: MPI_Finalize alone polls
    // at full speed and would take CPU from the ranks still evaluating (mpirun --oversubscribe).
    MPI_Request barrier;
    if (MPI_Ibarrier(MPI_COMM_WORLD, &barrier) == MPI_SUCCESS) {
      int complete = 0;
      while (MPI_Test(&barrier, &complete, MPI_STATUS_IGNORE) == MPI_SUCCESS && !complete)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    MPI_Finalize();
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  int ranks_on_this_node() const override { return node_size_; }

  std::string broadcast(const std::string& text) override {
    unsigned long long n = rank_ == 0 ? text.size() : 0;
    check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    std::string out = rank_ == 0 ? text : std::string(n, '\0');
    // In pieces below 2^31 bytes (MPI counts are int).
    for (unsigned long long off = 0; off < n; off += 1ull << 30) {
      const int len = static_cast<int>(std::min<unsigned long long>(n - off, 1ull << 30));
      check(MPI_Bcast(out.data() + off, len, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
    return out;
  }

  // Non-blocking sends: the rank goes back to its workers at once; the buffers live until MPI has
  // delivered them (checked at each send, and all waited for, without spinning, by send_done).
  void send_result(const std::string& json_line) override {
    if (json_line.empty()) throw std::invalid_argument("send_result: an empty result");
    post(json_line);
  }
  void send_done() override {
    post(std::string());
    while (!pending_.empty()) {
      int done = 0;
      check(MPI_Test(&pending_.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) pending_.pop_front();
      else std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  std::vector<std::string> poll_results() override {
    std::vector<std::string> lines;
    for (;;) {
      int flag = 0;
      MPI_Status st;
      check(MPI_Iprobe(MPI_ANY_SOURCE, kResultTag, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
      if (!flag) break;
      int count = 0;
      check(MPI_Get_count(&st, MPI_CHAR, &count), "MPI_Get_count");
      std::string line(static_cast<std::size_t>(count), '\0');
      check(MPI_Recv(line.data(), count, MPI_CHAR, st.MPI_SOURCE, kResultTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
      if (count == 0) ++finished_;
      else lines.push_back(std::move(line));
    }
    return lines;
  }
  int finished_ranks() const override { return finished_; }

  [[noreturn]] void abort_job(int code) override {
    std::cerr.flush();
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

 private:
  struct Pending {
    std::unique_ptr<std::string> text;   // stays at one address while MPI reads it
    MPI_Request request = MPI_REQUEST_NULL;
  };
  void post(const std::string& text) {
    reap();
    Pending p;
    p.text = std::make_unique<std::string>(text);
    check(MPI_Isend(p.text->data(), static_cast<int>(p.text->size()), MPI_CHAR, 0, kResultTag, MPI_COMM_WORLD,
                    &p.request),
          text.empty() ? "MPI_Isend (done to rank 0)" : "MPI_Isend (a result to rank 0)");
    pending_.push_back(std::move(p));
  }
  // Frees the sends that have completed, oldest first, up to the first one still in flight (sends to
  // one rank complete in order in practice; a later one that finished early is freed next time).
  void reap() {
    while (!pending_.empty()) {
      int done = 0;
      check(MPI_Test(&pending_.front().request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (!done) break;
      pending_.pop_front();
    }
  }
  std::deque<Pending> pending_;
  int rank_ = 0;
  int size_ = 1;
  int node_size_ = 1;
  int finished_ = 0;
};

}  // namespace

bool launched_as_mpi_rank() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

std::unique_ptr<MpiJob> join_mpi_job(const std::string&) {
  if (!launched_as_mpi_rank()) return nullptr;
  return std::make_unique<OpenMpiJob>();
}

int run_in_mpi_job(const std::string& command, const std::function<int(MpiJob*)>& body) {
  const std::unique_ptr<MpiJob> job = join_mpi_job(command);
  if (!job || job->size() == 1) return body(job.get());
  try {
    return body(job.get());
  } catch (const std::exception& e) {
    std::cerr << "hcpsim " << command << ": rank " << job->rank() << " of " << job->size() << ": error: " << e.what()
              << "\n  ending every rank of the MPI job\n";
    job->abort_job(1);
  }
  return 1;   // not reached: abort_job ends the process
}

}  // namespace hcpsim::cli
