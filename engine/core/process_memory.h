#pragma once
// Process-wide memory settings for programs that build million-task graphs.
//
// On the virtual machines we measure on, a first touch of a 4 KiB page costs about 10 us; a
// 1,024-rank graph touches ~200 MB, so page faults alone took ~0.5 s of a 1.6 s build+run. Two
// settings remove that cost:
//  - glibc's malloc is asked to back its memory with transparent huge pages (2 MiB): the
//    `glibc.malloc.hugetlb=1` tunable, which glibc reads only at start-up, so the program re-executes
//    itself once with it set in GLIBC_TUNABLES;
//  - a fixed mmap threshold (4 MiB) so that large arrays freed while a graph grows go back to the
//    system instead of staying in the heap (glibc raises the threshold dynamically otherwise).
// Set HCPSIM_HUGE_PAGES=0 in the environment to keep the default allocator behaviour.
namespace hcpsim {

// Call first thing in main(). May not return: it replaces the process image (same pid, same
// arguments) when the tunable is missing. Does nothing harmful when huge pages are unavailable.
void tune_process_memory(char** argv);

// True when this process runs with the huge-page tunable (after tune_process_memory).
bool huge_page_malloc_enabled();

}  // namespace hcpsim
