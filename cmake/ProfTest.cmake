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
  # ThreadSanitizer: every process of the test (unit test, app, forked child,
  # Python worker loading the agent) writes its reports to
  # tsan-reports/<test>.<pid>, which scripts/tsan.sh reads after the run, so
  # a report fails the run even where the test does not look at that
  # process's exit code or stderr. die_after_fork: ThreadSanitizer stops a
  # forked child of a threaded process that starts a thread, which every
  # forked child under the agent does (its writer). handle_segv, handle_sigbus,
  # handle_sigfpe: the tests check that a crashing app dies by its signal
  # (ThreadSanitizer's own handler would end it with exit code 66).
  if(PROF_SANITIZE STREQUAL "thread")
    list(PREPEND environment "TSAN_OPTIONS=die_after_fork=0:handle_segv=0:handle_sigbus=0:handle_sigfpe=0:second_deadlock_stack=1:suppressions=${PROJECT_SOURCE_DIR}/scripts/tsan_suppressions.txt:log_path=${CMAKE_BINARY_DIR}/tsan-reports/${T_NAME}")
  endif()
  if(environment)
    set_tests_properties(${T_NAME} PROPERTIES ENVIRONMENT "${environment}")
  endif()
  if(T_LABELS)
    set_tests_properties(${T_NAME} PROPERTIES LABELS "${T_LABELS}")
  endif()
endfunction()
