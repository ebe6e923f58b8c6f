target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/attention_tables.cpp
  ${CMAKE_CURRENT_LIST_DIR}/calibration.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cost_model.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl_curves.cpp
  ${CMAKE_CURRENT_LIST_DIR}/route.cpp)
