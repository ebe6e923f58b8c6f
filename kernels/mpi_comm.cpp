#include "kernels/mpi_comm.h"

#include <mpi.h>

#include <cstdlib>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace hcpsim::kernels {

namespace {

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(len));
}

void check(int code, const std::string& what) {
  if (code != MPI_SUCCESS) throw std::runtime_error(what + ": MPI: " + mpi_error(code));
}

int as_count(std::size_t n, const std::string& what) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::runtime_error(what + ": message of " + std::to_string(n) + " elements exceeds MPI's int count");
  return static_cast<int>(n);
}

}  // namespace

MpiWorld init_mpi() {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) MPI_Init(nullptr, nullptr);
  MpiWorld w;
  MPI_Comm_rank(MPI_COMM_WORLD, &w.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &w.size);
  return w;
}

struct MpiComm::Impl {
  int rank = 0, size = 1;
  std::map<int, MPI_Comm> by_kind;   // GroupKind -> communicator
  struct Call {
    std::vector<MPI_Request> requests;
    std::vector<CommMessage> unsized;   // receives whose size comes from the message
    std::string what;
  };
  std::map<CommTicket, Call> calls;
  CommTicket next = 1;

  MPI_Comm comm_of(GroupKind k, const std::string& what) {
    auto it = by_kind.find(static_cast<int>(k));
    if (it == by_kind.end())
      throw std::runtime_error(what + ": no communicator for group kind " + to_string(k) + " (open_groups)");
    return it->second;
  }
};

MpiComm::MpiComm() : impl_(std::make_unique<Impl>()) {
  MPI_Comm_rank(MPI_COMM_WORLD, &impl_->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &impl_->size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

MpiComm::~MpiComm() {
  int fin = 0;
  MPI_Finalized(&fin);
  if (fin) return;
  for (auto& [id, c] : impl_->calls)
    for (MPI_Request& r : c.requests)
      if (r != MPI_REQUEST_NULL) {
        MPI_Cancel(&r);
        MPI_Request_free(&r);
      }
  for (auto& [k, c] : impl_->by_kind) MPI_Comm_free(&c);
}

int MpiComm::rank() const { return impl_->rank; }
int MpiComm::size() const { return impl_->size; }

void MpiComm::open_groups(const RankLayout& layout, const std::vector<GroupKind>& kinds) {
  for (GroupKind k : kinds) {
    const auto& members = layout.group_of(k, impl_->rank);
    const CommSplit split = comm_split_of(layout, k, impl_->rank);
    MPI_Comm c = MPI_COMM_NULL;
    const std::string what = "rank " + std::to_string(impl_->rank) + ": MPI_Comm_split (" + to_string(k) + ")";
    check(MPI_Comm_split(MPI_COMM_WORLD, split.color, split.key, &c), what);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int n = 0;
    MPI_Comm_size(c, &n);
    if (n != static_cast<int>(members.size()))
      throw std::runtime_error(what + ": communicator of " + std::to_string(n) + " ranks for a group of " +
                               std::to_string(members.size()));
    impl_->by_kind[static_cast<int>(k)] = c;
  }
}

CommTicket MpiComm::start(const CommCall& call, void*, const std::string& what) {
  Impl::Call c;
  c.what = what;
  auto add = [&](int code, const char* fn) {
    check(code, what + ": " + fn);
  };
  switch (call.kind) {
    case TaskKind::SendRecv:
      for (const CommMessage& m : call.recvs) {
        if (m.sized_by_sender) {
          c.unsized.push_back(m);
          continue;
        }
        c.requests.emplace_back();
        add(MPI_Irecv(m.data, as_count(m.bytes, what), MPI_BYTE, m.peer, m.tag, MPI_COMM_WORLD, &c.requests.back()),
            "MPI_Irecv");
      }
      for (const CommMessage& m : call.sends) {
        c.requests.emplace_back();
        add(MPI_Isend(m.data, as_count(m.bytes, what), MPI_BYTE, m.peer, m.tag, MPI_COMM_WORLD, &c.requests.back()),
            "MPI_Isend");
      }
      break;
    case TaskKind::AllToAll: {
      MPI_Comm g = impl_->comm_of(call.group, what);
      int me = 0;
      MPI_Comm_rank(g, &me);
      if (me != call.member_index)
        throw std::runtime_error(what + ": member " + std::to_string(call.member_index) + " of the call is rank " +
                                 std::to_string(me) + " of the " + to_string(call.group) + " communicator");
      c.requests.emplace_back();
      const int n = as_count(call.count_per_member, what);
      add(MPI_Ialltoall(call.send, n, MPI_BYTE, call.recv, n, MPI_BYTE, g, &c.requests.back()), "MPI_Ialltoall");
      break;
    }
    case TaskKind::AllGather: {
      MPI_Comm g = impl_->comm_of(call.group, what);
      c.requests.emplace_back();
      const int n = as_count(call.count_per_member, what);
      add(MPI_Iallgather(call.send, n, MPI_BYTE, call.recv, n, MPI_BYTE, g, &c.requests.back()), "MPI_Iallgather");
      break;
    }
    case TaskKind::ReduceScatter: {
      if (call.element != CommElement::Float64)
        throw std::runtime_error(what + ": the MPI communicator reduces float64 only");
      MPI_Comm g = impl_->comm_of(call.group, what);
      c.requests.emplace_back();
      add(MPI_Ireduce_scatter_block(call.send, call.recv, as_count(call.count_per_member, what), MPI_DOUBLE, MPI_SUM, g,
                                    &c.requests.back()),
          "MPI_Ireduce_scatter_block");
      break;
    }
    default: throw std::runtime_error(what + ": the MPI communicator cannot run " + std::string(to_string(call.kind)));
  }
  const CommTicket id = impl_->next++;
  impl_->calls.emplace(id, std::move(c));
  return id;
}

bool MpiComm::finished(CommTicket ticket) {
  auto it = impl_->calls.find(ticket);
  if (it == impl_->calls.end()) return true;
  Impl::Call& c = it->second;
  // Receives sized by the sender: probe, size the buffer, then receive the matched message.
  for (std::size_t i = 0; i < c.unsized.size();) {
    const CommMessage& m = c.unsized[i];
    int flag = 0;
    MPI_Message msg;
    MPI_Status st;
    check(MPI_Improbe(m.peer, m.tag, MPI_COMM_WORLD, &flag, &msg, &st), c.what + ": MPI_Improbe");
    if (!flag) {
      ++i;
      continue;
    }
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    m.sized_by_sender->resize(static_cast<std::size_t>(count));
    c.requests.emplace_back();
    check(MPI_Imrecv(m.sized_by_sender->data(), count, MPI_BYTE, &msg, &c.requests.back()), c.what + ": MPI_Imrecv");
    c.unsized.erase(c.unsized.begin() + static_cast<std::ptrdiff_t>(i));
  }
  int done = 0;
  if (!c.requests.empty())
    check(MPI_Testall(static_cast<int>(c.requests.size()), c.requests.data(), &done, MPI_STATUSES_IGNORE),
          c.what + ": MPI_Testall");
  else
    done = 1;
  if (!done || !c.unsized.empty()) return false;
  impl_->calls.erase(it);
  return true;
}

void MpiComm::barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "rank " + std::to_string(impl_->rank) + ": MPI_Barrier"); }

std::vector<std::vector<char>> MpiComm::gather_to_root(const std::vector<char>& mine) {
  const std::string what = "rank " + std::to_string(impl_->rank) + ": gather to rank 0";
  int count = as_count(mine.size(), what);
  std::vector<int> counts(static_cast<std::size_t>(impl_->size)), displs(static_cast<std::size_t>(impl_->size));
  check(MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), what);
  std::vector<char> all;
  if (impl_->rank == 0) {
    long long total = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      displs[i] = static_cast<int>(total);
      total += counts[i];
    }
    if (total > std::numeric_limits<int>::max()) throw std::runtime_error(what + ": more than 2 GiB to gather");
    all.resize(static_cast<std::size_t>(total));
  }
  check(MPI_Gatherv(mine.data(), count, MPI_BYTE, all.data(), counts.data(), displs.data(), MPI_BYTE, 0, MPI_COMM_WORLD),
        what);
  std::vector<std::vector<char>> out;
  if (impl_->rank != 0) return out;
  for (std::size_t i = 0; i < counts.size(); ++i)
    out.emplace_back(all.begin() + displs[i], all.begin() + displs[i] + counts[i]);
  return out;
}

}  // namespace hcpsim::kernels

namespace hcpsim::kernels {

bool launched_by_mpi() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_SIZE") || std::getenv("PMIX_RANK") ||
         std::getenv("SLURM_NTASKS");
}

void abort_all_ranks(int code) {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, code);
}

void finalize_mpi() {
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Finalize();
}

}  // namespace hcpsim::kernels
