#include "kernels/nccl_loader.h"

#include <dlfcn.h>
#include <nccl.h>

#include <mutex>
#include <stdexcept>
#include <string>

#include "kernels/nccl_library_search.h"

namespace hcpsim::kernels {

namespace {

const NcclLibrary& loaded() {
  static std::once_flag once;
  static NcclLibrary l;
  std::call_once(once, [] {
    l = open_first_nccl(nccl_candidates(NcclSearchPlaces::from_environment()), nccl_required_symbols());
  });
  return l;
}

}  // namespace

// The symbol `name` of the loaded library (every one of nccl_required_symbols() was checked when
// it was opened); throws when no library fitted.
template <typename Fn>
Fn resolve(const char* name) {
  const NcclLibrary& l = loaded();
  if (!l.handle) throw std::runtime_error(nccl_not_found_message(l, name));
  void* sym = dlsym(l.handle, name);
  if (!sym) throw std::runtime_error(std::string("NCCL library ") + l.path + " has no " + name);
  return reinterpret_cast<Fn>(sym);
}

std::string nccl_library_description() {
  try {
    const NcclLibrary& l = loaded();
    if (!l.handle) return "NCCL not found (tried " + l.tried + ")";
    int v = 0;
    ncclGetVersion(&v);
    const int major = v / 10000, minor = (v / 100) % 100, patch = v % 100;
    return "NCCL " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch) + " from " +
           l.path + " (" + l.source + ")";
  } catch (const std::exception& e) {
    return e.what();
  }
}

bool nccl_library_found() {
  try {
    return loaded().handle != nullptr;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace hcpsim::kernels

// The NCCL functions hcpsim calls, forwarded to the loaded library (same signatures as nccl.h).
#define HCPSIM_NCCL_FORWARD(ret, name, params, args)                                     \
  extern "C" ret name params {                                                           \
    static const auto fn = hcpsim::kernels::resolve<ret(*) params>(#name);               \
    return fn args;                                                                      \
  }

using hcpsim::kernels::resolve;

HCPSIM_NCCL_FORWARD(ncclResult_t, ncclGetVersion, (int* version), (version))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclGetUniqueId, (ncclUniqueId * id), (id))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommInitRankConfig,
                    (ncclComm_t * comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t* config),
                    (comm, nranks, id, rank, config))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommInitAll, (ncclComm_t * comm, int ndev, const int* devlist),
                    (comm, ndev, devlist))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommSplit,
                    (ncclComm_t comm, int color, int key, ncclComm_t* newcomm, ncclConfig_t* config),
                    (comm, color, key, newcomm, config))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommDestroy, (ncclComm_t comm), (comm))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommAbort, (ncclComm_t comm), (comm))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t comm, ncclResult_t* err), (comm, err))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclCommCount, (const ncclComm_t comm, int* count), (comm, count))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclGroupStart, (), ())
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclGroupEnd, (), ())
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclSend,
                    (const void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t s),
                    (buf, count, type, peer, comm, s))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclRecv,
                    (void* buf, size_t count, ncclDataType_t type, int peer, ncclComm_t comm, cudaStream_t s),
                    (buf, count, type, peer, comm, s))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclAllGather,
                    (const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t comm, cudaStream_t s),
                    (send, recv, count, type, comm, s))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclReduceScatter,
                    (const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                     cudaStream_t s),
                    (send, recv, count, type, op, comm, s))
HCPSIM_NCCL_FORWARD(ncclResult_t, ncclAllReduce,
                    (const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                     cudaStream_t s),
                    (send, recv, count, type, op, comm, s))

// ncclGetErrorString must not throw (it formats errors): without a library it says so.
extern "C" const char* ncclGetErrorString(ncclResult_t result) {
  static const auto fn = [] {
    try {
      return resolve<const char* (*)(ncclResult_t)>("ncclGetErrorString");
    } catch (const std::exception&) {
      return static_cast<const char* (*)(ncclResult_t)>(nullptr);
    }
  }();
  return fn ? fn(result) : "NCCL error (libnccl.so.2 not loaded)";
}
