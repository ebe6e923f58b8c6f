target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/trace_compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/compare_format.cpp)
