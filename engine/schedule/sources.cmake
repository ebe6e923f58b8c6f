target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/schedule_context.cpp
  ${CMAKE_CURRENT_LIST_DIR}/p2p_ring.cpp
  ${CMAKE_CURRENT_LIST_DIR}/a2a_ulysses.cpp
  ${CMAKE_CURRENT_LIST_DIR}/all_gather.cpp
  ${CMAKE_CURRENT_LIST_DIR}/a2a_p2p.cpp
  ${CMAKE_CURRENT_LIST_DIR}/build.cpp
  ${CMAKE_CURRENT_LIST_DIR}/layer_ops.cpp)
