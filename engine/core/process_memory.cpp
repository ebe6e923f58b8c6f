#include "engine/core/process_memory.h"

#include <dlfcn.h>
#include <malloc.h>
#include <sys/resource.h>

#include <cstddef>
#include <string>

namespace hcpsim {
namespace {

using MallctlFn = int (*)(const char*, void*, std::size_t*, void*, std::size_t);

MallctlFn jemalloc_mallctl() {
  static const MallctlFn fn = reinterpret_cast<MallctlFn>(dlsym(RTLD_DEFAULT, "mallctl"));
  return fn;
}

}  // namespace

const char* allocator_name() { return jemalloc_mallctl() != nullptr ? "jemalloc" : "glibc"; }

void release_free_memory() {
  if (MallctlFn mallctl = jemalloc_mallctl()) {
    // 4096 is MALLCTL_ARENAS_ALL: every arena.
    mallctl("arena.4096.purge", nullptr, nullptr, nullptr, 0);
    return;
  }
  malloc_trim(0);
}

namespace {
rusage usage_of(Usage who) {
  rusage ru{};
  getrusage(who == Usage::Self ? RUSAGE_SELF : RUSAGE_CHILDREN, &ru);
  return ru;
}
}  // namespace

double peak_rss_mib(Usage who) { return static_cast<double>(usage_of(who).ru_maxrss) / 1024.0; }   // Linux: KiB

double cpu_time_s(Usage who) {
  const rusage ru = usage_of(who);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

}  // namespace hcpsim
