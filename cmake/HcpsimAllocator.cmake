# hcpsim::allocator — link it into executables (hcpsim, benchmarks) to run them on jemalloc with
# transparent huge pages; engine/core/process_memory.h explains the measured reasons. Off under
# sanitizers (they bring their own allocator). Debian package: libjemalloc-dev.
hcpsim_option_unless_sanitizing(HCPSIM_WITH_JEMALLOC "Link the hcpsim programs with jemalloc (huge pages)")

add_library(hcpsim_allocator INTERFACE)
add_library(hcpsim::allocator ALIAS hcpsim_allocator)
if(HCPSIM_WITH_JEMALLOC)
  find_library(HCPSIM_JEMALLOC_LIBRARY NAMES jemalloc)
  if(NOT HCPSIM_JEMALLOC_LIBRARY)
    message(FATAL_ERROR "HCPSIM_WITH_JEMALLOC is ON but libjemalloc was not found: install the Debian "
                        "package libjemalloc-dev (scripts/setup.sh does), or configure with -DHCPSIM_WITH_JEMALLOC=OFF")
  endif()
  target_sources(hcpsim_allocator INTERFACE ${PROJECT_SOURCE_DIR}/engine/core/jemalloc_config.cpp)
  target_link_libraries(hcpsim_allocator INTERFACE ${HCPSIM_JEMALLOC_LIBRARY})
endif()
