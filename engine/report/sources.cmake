target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/critical_path.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_guard.cpp
  ${CMAKE_CURRENT_LIST_DIR}/report_writers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/simulate.cpp)
