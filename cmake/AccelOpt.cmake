# accelopt_add_test(NAME name SOURCES ... LIBS ... [SLOW])
# Builds one GoogleTest executable and registers each of its tests with CTest. SLOW tests get the
# label "slow" so that `ctest -LE slow` is the quick run.
function(accelopt_add_test)
  cmake_parse_arguments(ARG "SLOW" "NAME" "SOURCES;LIBS" ${ARGN})
  if(NOT ACCELOPT_BUILD_TESTS)
    return()
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${ARG_NAME} PRIVATE
    ACCELOPT_SOURCE_DIR="${PROJECT_SOURCE_DIR}" ACCELOPT_BINARY_DIR="${PROJECT_BINARY_DIR}")
  set(labels unit)
  if(ARG_SLOW)
    set(labels slow)
  endif()
  # Tests keep their compile, reference and machine caches in the build tree, never the user's.
  gtest_discover_tests(${ARG_NAME} DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${labels}" ENVIRONMENT "ACCELOPT_CACHE_DIR=${PROJECT_BINARY_DIR}/test-cache")
endfunction()
