#pragma once
// Which allocator this process runs with, and a way to hand freed memory back to the system.
//
// The hcpsim programs link jemalloc (cmake/HcpsimAllocator.cmake) configured for transparent huge
// pages (engine/core/jemalloc_config.cpp). Two measured reasons, both on million-task graphs:
//  - page faults: on the virtual machines we measure on, a first touch of a 4 KiB page costs about
//    10 us; a 1,024-rank graph touches ~150 MB, so faults took a third of a build+run. 2 MiB pages
//    remove most of them.
//  - SimGrid 3.32 removes every finished host-to-host Comm from one std::list by a full walk; with
//    thousands of flows alive, that walk is a pointer chase whose cost is cache misses. jemalloc's
//    size classes keep the list nodes dense, which made the simgrid backend ~2.5x faster.
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
