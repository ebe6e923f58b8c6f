target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sweep_spec.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_result.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_runner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_chart.cpp
  ${CMAKE_CURRENT_LIST_DIR}/planner.cpp
  ${CMAKE_CURRENT_LIST_DIR}/plan_explain.cpp
  ${CMAKE_CURRENT_LIST_DIR}/point_eval.cpp)
