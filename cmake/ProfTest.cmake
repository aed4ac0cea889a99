# prof_add_test(NAME name COMMAND cmd... [TIMEOUT s] [ENVIRONMENT k=v...] [LABELS l...])
# Every test goes through here so that none runs without a timeout.
function(prof_add_test)
  cmake_parse_arguments(T "" "NAME;TIMEOUT;WORKING_DIRECTORY" "COMMAND;ENVIRONMENT;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 60)
  endif()
  # Sanitizer builds run slower, most of all in tests that start many
  # processes (an AddressSanitizer profanalyze takes 90 ms to start, 11 ms
  # without): their timeouts are four times as long.
  if(PROF_SANITIZE)
    math(EXPR T_TIMEOUT "${T_TIMEOUT} * 4")
  endif()
  if(NOT T_WORKING_DIRECTORY)
    set(T_WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  endif()
  add_test(NAME ${T_NAME} COMMAND ${T_COMMAND} WORKING_DIRECTORY ${T_WORKING_DIRECTORY})
  set_tests_properties(${T_NAME} PROPERTIES TIMEOUT ${T_TIMEOUT})
  # PROF_TEST_ENVIRONMENT: for every test of a directory (a CMake variable,
  # so it holds in the directory that sets it and below).
  set(environment ${PROF_TEST_ENVIRONMENT} ${T_ENVIRONMENT})
  if(environment)
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${environment}")
  endif()
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()
