target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/model_flops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_model.cpp)
