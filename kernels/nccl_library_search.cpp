#include "kernels/nccl_library_search.h"

#include <dlfcn.h>
#include <glob.h>

#include <cstdlib>

namespace hcpsim::kernels {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

std::vector<std::string> glob_paths(const std::string& pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

}  // namespace

NcclSearchPlaces NcclSearchPlaces::from_environment() {
  NcclSearchPlaces p;
  p.override_path = env("HCPSIM_NCCL_LIBRARY");
  if (const std::string c = env("CUDA_HOME"); !c.empty()) p.cuda_roots.push_back(c);
  p.cuda_roots.emplace_back("/usr/local/cuda");
  for (const char* v : {"VIRTUAL_ENV", "CONDA_PREFIX"})
    if (const std::string r = env(v); !r.empty()) p.site_packages.push_back(r + "/lib/python3*/site-packages");
  if (const std::string home = env("HOME"); !home.empty())
    p.site_packages.push_back(home + "/.local/lib/python3*/site-packages");
  for (const char* r : {"/usr/local/lib/python3*/dist-packages", "/usr/local/lib/python3*/site-packages",
                        "/usr/lib/python3/dist-packages", "/usr/lib/python3*/site-packages",
                        "/opt/conda/lib/python3*/site-packages"})
    p.site_packages.emplace_back(r);
  return p;
}

std::vector<NcclCandidate> nccl_candidates(const NcclSearchPlaces& p) {
  std::vector<NcclCandidate> c;
  if (!p.override_path.empty()) c.push_back({p.override_path, "HCPSIM_NCCL_LIBRARY"});
  if (!p.system_name.empty()) c.push_back({p.system_name, "system"});
  for (const auto& root : p.cuda_roots)
    for (const char* sub : {"/lib64/libnccl.so.2", "/lib/libnccl.so.2"}) c.push_back({root + sub, "CUDA toolkit"});
  for (const auto& site : p.site_packages)
    for (const auto& lib : glob_paths(site + "/nvidia/nccl/lib/libnccl.so.2"))
      c.push_back({lib, "Python wheel nvidia-nccl"});
  return c;
}

NcclLibrary open_first_nccl(const std::vector<NcclCandidate>& candidates, const std::vector<std::string>& required) {
  NcclLibrary l;
  for (const auto& cand : candidates) {
    if (!l.tried.empty()) l.tried += ", ";
    l.tried += cand.path;
    void* h = dlopen(cand.path.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
      l.tried += " (not found)";
      continue;
    }
    std::string missing;
    for (const auto& sym : required)
      if (!dlsym(h, sym.c_str())) {
        missing = sym;
        break;
      }
    if (!missing.empty()) {
      l.tried += " (lacks " + missing + ")";
      dlclose(h);
      continue;
    }
    l.handle = h;
    l.source = cand.source;
    Dl_info info{};
    void* sym = required.empty() ? nullptr : dlsym(h, required.front().c_str());
    l.path = sym && dladdr(sym, &info) && info.dli_fname ? info.dli_fname : cand.path;
    return l;
  }
  return l;
}

const std::vector<std::string>& nccl_required_symbols() {
  static const std::vector<std::string> names = {
      "ncclGetVersion", "ncclGetUniqueId",  "ncclCommInitRankConfig", "ncclCommInitAll", "ncclCommSplit",
      "ncclCommDestroy", "ncclCommAbort",   "ncclCommGetAsyncError",  "ncclCommCount",   "ncclGroupStart",
      "ncclGroupEnd",   "ncclSend",         "ncclRecv",               "ncclAllGather",   "ncclReduceScatter",
      "ncclAllReduce",  "ncclGetErrorString"};
  return names;
}

std::string nccl_not_found_message(const NcclLibrary& l, const std::string& function) {
  return "NCCL is needed for " + function + " but no usable libnccl.so.2 was found (tried " +
         (l.tried.empty() ? std::string("nothing") : l.tried) +
         "); install the system package or `pip install nvidia-nccl-cu13`, or set "
         "HCPSIM_NCCL_LIBRARY=/path/to/libnccl.so.2";
}

}  // namespace hcpsim::kernels
