#pragma once
// Where hcpsim looks for libnccl.so.2 at run time, and the opening (no CUDA, no NCCL header: the
// search logic is tested on machines without either, tests/kernels/test_nccl_library_search.cpp).
// Order: $HCPSIM_NCCL_LIBRARY (a file), the system's libnccl.so.2 (ld.so cache, LD_LIBRARY_PATH),
// the CUDA toolkit's lib64 and lib ($CUDA_HOME, then /usr/local/cuda), then the Python wheel
// nvidia-nccl-cu* (nvidia/nccl/lib under $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local and the system
// site-packages). A library that opens but lacks one of the symbols hcpsim calls is rejected by
// name and the search goes on.
#include <string>
#include <vector>

namespace hcpsim::kernels {

// The places the search reads; from_environment() fills them from this process.
struct NcclSearchPlaces {
  std::string override_path;                // $HCPSIM_NCCL_LIBRARY
  std::string system_name = "libnccl.so.2";   // dlopen by name: ld.so cache and LD_LIBRARY_PATH
  std::vector<std::string> cuda_roots;      // $CUDA_HOME, /usr/local/cuda
  std::vector<std::string> site_packages;   // glob patterns of Python site-packages directories
  static NcclSearchPlaces from_environment();
};

struct NcclCandidate {
  std::string path;     // what dlopen is given
  std::string source;   // "HCPSIM_NCCL_LIBRARY", "system", "CUDA toolkit", "Python wheel nvidia-nccl"
};

// Every candidate in search order (site-packages globs expanded to the wheels that exist).
std::vector<NcclCandidate> nccl_candidates(const NcclSearchPlaces& places);

struct NcclLibrary {
  void* handle = nullptr;   // dlopen handle, nullptr when none fitted
  std::string path;         // the file actually opened (dladdr), or the candidate path
  std::string source;
  std::string tried;        // "A (cannot open: ...), B (lacks ncclCommSplit), C"
};

// Opens the first candidate that loads and defines every symbol of `required`.
NcclLibrary open_first_nccl(const std::vector<NcclCandidate>& candidates, const std::vector<std::string>& required);

// The symbols hcpsim calls (nccl_loader.cpp forwards exactly these).
const std::vector<std::string>& nccl_required_symbols();

// The error when `function` is called and no library fitted: names every place tried and the fixes.
std::string nccl_not_found_message(const NcclLibrary& l, const std::string& function);

}  // namespace hcpsim::kernels
