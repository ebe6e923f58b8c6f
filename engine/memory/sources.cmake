target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/memory_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/memory_report.cpp)
