target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/diagnostics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/internal_error.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_memory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/units.cpp)
