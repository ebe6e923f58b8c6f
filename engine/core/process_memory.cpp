#include "engine/core/process_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace hcpsim {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb=1";

bool opted_out() {
  const char* v = std::getenv("HCPSIM_HUGE_PAGES");
  return v != nullptr && std::strcmp(v, "0") == 0;
}

}  // namespace

bool huge_page_malloc_enabled() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  return t != nullptr && std::strstr(t, kTunable) != nullptr;
}

void tune_process_memory(char** argv) {
  if (opted_out()) return;
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  if (huge_page_malloc_enabled() || argv == nullptr || argv[0] == nullptr) return;
  // Re-execute once with the tunable; HCPSIM_TUNED guards against a loop should glibc drop it.
  if (std::getenv("HCPSIM_TUNED") != nullptr) return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  const std::string tunables = old && *old ? std::string(old) + ":" + kTunable : std::string(kTunable);
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0 || setenv("HCPSIM_TUNED", "1", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, for example): carry on with the default allocator.
  if (old) setenv("GLIBC_TUNABLES", old, 1);
  else unsetenv("GLIBC_TUNABLES");
}

}  // namespace hcpsim
