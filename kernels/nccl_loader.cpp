#include "kernels/nccl_loader.h"

#include <dlfcn.h>
#include <glob.h>
#include <nccl.h>

#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace hcpsim::kernels {

namespace {

struct Loaded {
  void* handle = nullptr;
  std::string path, source, tried;
};

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

Loaded load() {
  Loaded l;
  auto attempt = [&](const std::string& path, const char* source) {
    if (l.handle) return;
    l.tried += (l.tried.empty() ? "" : ", ") + path;
    if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      l.handle = h;
      l.source = source;
      Dl_info info{};
      void* sym = dlsym(h, "ncclGetVersion");
      l.path = sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : path;
    }
  };
  if (const char* p = std::getenv("HCPSIM_NCCL_LIBRARY"); p && *p) attempt(p, "HCPSIM_NCCL_LIBRARY");
  attempt("libnccl.so.2", "system");
  attempt("/usr/local/cuda/lib64/libnccl.so.2", "CUDA toolkit");
  attempt("/usr/local/cuda/lib/libnccl.so.2", "CUDA toolkit");
  std::vector<std::string> roots;
  for (const char* v : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const char* p = std::getenv(v); p && *p) roots.push_back(std::string(p) + "/lib/python3*/site-packages");
  if (const char* home = std::getenv("HOME"); home && *home) roots.push_back(std::string(home) + "/.local/lib/python3*/site-packages");
  for (const char* r : {"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
                        "/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages", "/opt/conda/lib/python3*/site-packages"})
    roots.emplace_back(r);
  for (const auto& root : roots)
    for (const auto& lib : glob_paths(root + "/nvidia/nccl/lib/libnccl.so.2")) attempt(lib, "Python wheel nvidia-nccl");
  return l;
}

const Loaded& loaded() {
  static std::once_flag once;
  static Loaded l;
  std::call_once(once, [] { l = load(); });
  return l;
}

}  // namespace

// The symbol `name` of the loaded library; throws when there is none.
template <typename Fn>
Fn resolve(const char* name) {
  const Loaded& l = loaded();
  if (!l.handle)
    throw std::runtime_error(std::string("NCCL is needed for ") + name + " but libnccl.so.2 was not found (tried " +
                             l.tried + "); install the system package or `pip install nvidia-nccl-cu13`, or set "
                             "HCPSIM_NCCL_LIBRARY=/path/to/libnccl.so.2");
  void* sym = dlsym(l.handle, name);
  if (!sym) throw std::runtime_error(std::string("NCCL library ") + l.path + " has no " + name);
  return reinterpret_cast<Fn>(sym);
}

std::string nccl_library_description() {
  try {
    const Loaded& l = loaded();
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
