// jemalloc reads this global at start-up (see `man jemalloc`, "malloc_conf"): back the heap and
// jemalloc's own metadata with transparent huge pages (why: engine/core/process_memory.h), and give
// every thread the same arena. With an arena per thread, the threads that write a trace file during
// the run (engine/report/trace_during_run.h) and compress it each took fresh 2 MiB pages instead of
// reusing what the main thread had freed: 20 MB more peak RSS on the 1,024-rank scenario of
// docs/performance.md. The threads' small allocations stay thread-local (jemalloc's thread caches).
// oversize_threshold:0: no separate arena for allocations above 8 MiB, which jemalloc returns to the
// system as soon as they are freed; the graph's edge list, the run's arrays and the report's are
// such allocations, one after the other, and reusing the pages was 6-12 MB less peak RSS.
// Linked only into executables that link jemalloc (cmake/HcpsimAllocator.cmake).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:always,narenas:1,oversize_threshold:0";
}
