#include "engine/core/process_memory.h"

#include <dlfcn.h>
#include <malloc.h>

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

}  // namespace hcpsim
