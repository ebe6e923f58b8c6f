// jemalloc reads this global at start-up (see `man jemalloc`, "malloc_conf"). Why each setting
// (docs/performance.md, "Memory"):
// - thp:never, metadata_thp:disabled: 4 KiB pages. On the VMs we run on, the kernel's zeroing of a
//   fresh 2 MiB page is slow and erratic (0.5-0.75 s of system time on the 1,024-rank user-path
//   scenario with thp:always, against 0.10-0.17 s with 4 KiB pages, same user time).
// - dirty_decay_ms:-1, muzzy_decay_ms:-1: freed pages stay with the process and are reused instead
//   of being returned to the system and faulted in (and zeroed) again: 48 K page faults instead of
//   78 K on that scenario, the same peak RSS. release_free_memory() still purges on demand (before
//   a simulation child is forked).
// - narenas:1: every thread uses the same arena. With an arena per thread, the threads that write a
//   trace file during the run (engine/app/trace_during_run.h) and compress it took fresh pages
//   instead of reusing what the main thread had freed: 20 MB more peak RSS. The threads' small
//   allocations stay thread-local (jemalloc's thread caches).
// - oversize_threshold:0: no separate arena for allocations above 8 MiB, which jemalloc returns to
//   the system as soon as they are freed; the graph's edge list, the run's arrays and the report's
//   are such allocations, one after the other, and reusing the pages was 6-12 MB less peak RSS.
// MALLOC_CONF in the environment overrides any of these (jemalloc reads it after this string).
// Linked only into executables that link jemalloc (cmake/HcpsimAllocator.cmake).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf =
    "thp:never,metadata_thp:disabled,dirty_decay_ms:-1,muzzy_decay_ms:-1,narenas:1,oversize_threshold:0";
}
