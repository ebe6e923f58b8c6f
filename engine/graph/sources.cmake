target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/task_graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/graph_export.cpp)
