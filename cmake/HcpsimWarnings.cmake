# Warning and sanitizer flags live in one INTERFACE target that every hcpsim target links.
add_library(hcpsim_warnings INTERFACE)
add_library(hcpsim::warnings ALIAS hcpsim_warnings)
target_compile_options(hcpsim_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local -Wno-unused-parameter>)
if(HCPSIM_SANITIZE)
  target_compile_options(hcpsim_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined>)
  target_link_options(hcpsim_warnings INTERFACE -fsanitize=address,undefined)
endif()
