target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cost_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/route.cpp)
