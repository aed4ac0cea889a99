# cuptiGetCallbackName's table: every driver and runtime callback id the CUPTI
# headers name, spelled as CUPTI spells it (the enumerator without its prefix:
# "cuMemAlloc_v2", "cudaMalloc_v3020"). Generated at configure time from the
# toolkit's own headers so that it follows the CUPTI release simcuda builds against.
function(simcuda_callback_names header prefix output)
  file(STRINGS ${header} lines REGEX "^[ \t]*${prefix}[A-Za-z0-9_]+[ \t]*=[ \t]*[0-9]+")
  set(text "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^[ \t]*${prefix}([A-Za-z0-9_]+)[ \t]*=[ \t]*([0-9]+)")
      set(name ${CMAKE_MATCH_1})
      set(id ${CMAKE_MATCH_2})
      if(NOT name MATCHES "^(INVALID|SIZE|FORCE_INT)$")
        string(APPEND text "{${id}, \"${name}\"},\n")
      endif()
    endif()
  endforeach()
  file(CONFIGURE OUTPUT ${output} CONTENT "${text}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${header})
endfunction()
