#pragma once
// NCCL loaded at run time (dlopen), so that hcpsim neither links nor ships libnccl (over 200 MB):
// nccl_loader.cpp defines the NCCL functions hcpsim calls and forwards each to the library found on
// first use by the search of nccl_library_search.h ($HCPSIM_NCCL_LIBRARY, the system, the CUDA
// toolkit, the Python wheel nvidia-nccl-cu*; a library lacking one of the functions is skipped).
// A call made when none is found throws std::runtime_error listing what was tried.
#include <string>

namespace hcpsim::kernels {

// "NCCL 2.28.9 from /usr/lib/x86_64-linux-gnu/libnccl.so.2 (system)", or why none was found.
// Loads the library when not loaded yet; never throws.
std::string nccl_library_description();

// Whether a usable NCCL library was found (loads it when not loaded yet); never throws.
bool nccl_library_found();

}  // namespace hcpsim::kernels
