// jemalloc reads this global at start-up (see `man jemalloc`, "malloc_conf"): back the heap and
// jemalloc's own metadata with transparent huge pages. Why: engine/core/process_memory.h.
// Linked only into executables that link jemalloc (cmake/HcpsimAllocator.cmake).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "thp:always,metadata_thp:always";
}
