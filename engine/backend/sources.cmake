target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/backend_registry.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine_backends.cpp)
