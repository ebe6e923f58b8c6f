target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/accuracy_case.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_reader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_prediction.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernel_case.cpp
  ${CMAKE_CURRENT_LIST_DIR}/collective_case.cpp
  ${CMAKE_CURRENT_LIST_DIR}/scenario_case.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accuracy_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accuracy_writers.cpp
  ${CMAKE_CURRENT_LIST_DIR}/accuracy_chart.cpp)
