target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/analytic_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_time.cpp)
