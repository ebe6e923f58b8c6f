target_sources(hcpsim_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/attention_kernels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/data_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dense_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/payload_ops.cpp
  ${CMAKE_CURRENT_LIST_DIR}/executor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verify.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reference_backend.cpp)
