# Order check of the published backtest with its known exceptions stated.
# Runs `hcpsim accuracy DIR --format json`, reads every group's discordant_pairs and fails when
#  - a group outside KNOWN is predicted out of its measured order (a new mismatch), or
#  - a group in KNOWN is now in order (the list is out of date: remove it, and from docs/accuracy.md).
# Usage: cmake -DHCPSIM=... -DDIR=... -DKNOWN=g1,g2 -P order_guard.cmake
string(REPLACE "," ";" KNOWN "${KNOWN}")
execute_process(COMMAND ${HCPSIM} accuracy ${DIR} --format json
                OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "hcpsim accuracy ${DIR} exited ${rc}:\n${err}")
endif()
string(JSON n LENGTH "${out}" groups)
math(EXPR last "${n} - 1")
set(known_left ${KNOWN})
set(failures "")
foreach(i RANGE ${last})
  string(JSON name GET "${out}" groups ${i} name)
  string(JSON pairs GET "${out}" groups ${i} discordant_pairs)
  list(FIND KNOWN "${name}" k)
  if(pairs GREATER 0 AND k EQUAL -1)
    string(APPEND failures "group ${name}: ${pairs} pair(s) out of measured order (not a known exception)\n")
  elseif(pairs EQUAL 0 AND NOT k EQUAL -1)
    string(APPEND failures "group ${name}: now in measured order; remove it from the known exceptions\n")
  endif()
  list(REMOVE_ITEM known_left "${name}")
endforeach()
foreach(g IN LISTS known_left)
  string(APPEND failures "known exception ${g} is no group of ${DIR}\n")
endforeach()
if(failures)
  message(FATAL_ERROR "${failures}")
endif()
message(STATUS "${n} groups: every group in measured order except the known exceptions: ${KNOWN}")
