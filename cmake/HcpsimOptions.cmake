# hcpsim_option_unless_sanitizing(NAME "doc"): an option that is ON by default, except in the
# sanitizer build (HCPSIM_SANITIZE), which brings its own allocator and never runs mpirun. A value
# given on the command line or in the cache wins either way.
macro(hcpsim_option_unless_sanitizing name doc)
  if(HCPSIM_SANITIZE)
    option(${name} "${doc}" OFF)
  else()
    option(${name} "${doc}" ON)
  endif()
endmacro()
