#pragma once
// Which allocator this process runs with, and a way to hand freed memory back to the system.
//
// The hcpsim programs link jemalloc (cmake/HcpsimAllocator.cmake) with the settings of
// engine/core/jemalloc_config.cpp: 4 KiB pages whose freed memory the process keeps and reuses (on
// the VMs we measure on, fresh pages, 2 MiB ones most of all, are slow to fault in and zero), one
// arena for every thread. jemalloc's size classes also keep SimGrid 3.32's std::list nodes dense: it
// removes every finished host-to-host Comm from one list by a full walk, a pointer chase whose cost
// is cache misses, and jemalloc made the simgrid backend ~2.5x faster than glibc's malloc.
// Builds without it (sanitizers) use glibc's malloc and the same code.
namespace hcpsim {

// "jemalloc" when it is the process's allocator, otherwise "glibc".
const char* allocator_name();

// Returns freed pages to the system now (jemalloc: purge every arena; glibc: malloc_trim). Called
// before forking a simulation child, so that the child does not carry the parent's freed memory.
void release_free_memory();

// Resource usage of this process (Usage::Self) or of its waited-for children (Usage::Children, the
// largest child for the peak): peak resident set in MiB, user + system CPU seconds.
enum class Usage { Self, Children };
double peak_rss_mib(Usage who);
double cpu_time_s(Usage who);

}  // namespace hcpsim
