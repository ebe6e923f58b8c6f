#pragma once
// The communication side of the multi-process runner, one object per process (one rank of the
// scenario): NCCL between GPUs (nccl_comm.h) or MPI between CPU processes (mpi_comm.h). The
// per-rank schedule (rank_schedule.h) drives both the same way: open one communicator per group
// kind the graph's collectives use, then start this rank's part of each communication task in the
// graph's issue order. Starting never blocks on the peers; a device (rank_device.h) learns when a
// call has ended with finished().
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/task_graph.h"
#include "engine/layout/rank_layout.h"

namespace hcpsim::kernels {

// Element type of a reduction (reduce_scatter, all_reduce); data moves are bytes.
enum class CommElement { Byte, BFloat16, Float64 };

// One point-to-point message of a send/recv call. `peer` is a world rank.
struct CommMessage {
  int peer = 0;
  int tag = 0;              // distinguishes messages between the same two ranks (ignored by NCCL)
  void* data = nullptr;     // send: bytes to send; receive: where they land
  std::size_t bytes = 0;
  // Receive only: the size comes from the message itself (MPI; the buffer is resized to fit and
  // `data`/`bytes` are ignored). NCCL refuses such a message.
  std::vector<char>* sized_by_sender = nullptr;
};

// This rank's part of one CommOp.
struct CommCall {
  TaskKind kind = TaskKind::SendRecv;
  GroupKind group = GroupKind::CP;        // collectives: the communicator of this group kind
  int member_index = 0;                   // collectives: this rank's index in CommOp::ranks
  std::vector<CommMessage> sends, recvs;  // SendRecv
  const void* send = nullptr;             // collectives: send buffer
  void* recv = nullptr;                   // collectives: receive buffer
  std::size_t count_per_member = 0;       // collectives: elements per member slot (a2a: one slot,
                                          // all_gather: the local shard, reduce_scatter: the output)
  CommElement element = CommElement::Byte;
};

// This rank's place in a split of the world into the communicators of group kind `k`: the
// color (its group's index) and the key (its index in the group, so that communicator ranks
// follow group order).
struct CommSplit {
  int color = 0;
  int key = 0;
};
inline CommSplit comm_split_of(const RankLayout& layout, GroupKind k, int rank) {
  const auto& members = layout.group_of(k, rank);
  int key = 0;
  while (key < static_cast<int>(members.size()) && members[static_cast<std::size_t>(key)] != rank) ++key;
  return {layout.group_index_of(k, rank), key};
}

using CommTicket = std::uint32_t;

class RankComm {
 public:
  RankComm() = default;
  virtual ~RankComm() = default;
  // A communicator owns the process's handles (MPI communicators, NCCL communicators): never copied.
  RankComm(const RankComm&) = delete;
  RankComm& operator=(const RankComm&) = delete;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Creates this rank's communicator of each kind (members in group order, so that a member's
  // index in a CommOp equals its rank in the communicator). Collective over every process.
  virtual void open_groups(const RankLayout& layout, const std::vector<GroupKind>& kinds) = 0;
  // Starts a call; `stream` is the device's queue for it (a cudaStream_t for NCCL, unused by MPI).
  // Throws std::runtime_error starting with `what` on failure.
  virtual CommTicket start(const CommCall& call, void* stream, const std::string& what) = 0;
  // True once every message of the call has arrived and every buffer may be reused. NCCL: always
  // true (the stream orders completion; the device watches its events).
  virtual bool finished(CommTicket ticket) = 0;
  // Throws std::runtime_error starting with `what` when a communicator reports an asynchronous error.
  virtual void check_errors(const std::string& what) = 0;
  // Host-side synchronisation and collection (MPI for both implementations).
  virtual void barrier() = 0;
  // Every rank's bytes on rank 0 (index = rank); empty elsewhere.
  virtual std::vector<std::vector<char>> gather_to_root(const std::vector<char>& mine) = 0;
  // Aborts the communicators after an error on this rank (the caller then ends the job).
  virtual void abort() = 0;
};

}  // namespace hcpsim::kernels
