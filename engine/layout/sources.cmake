target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/rank_layout.cpp
  ${CMAKE_CURRENT_LIST_DIR}/layout_format.cpp)
