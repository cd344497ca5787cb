# Sanitizer and fuzzing builds (presets asan and tsan, CMakePresets.json).
#   LAYERBENCH_SANITIZE  "" (default), "address,undefined" or "thread": instruments every target.
#   LAYERBENCH_FUZZ      ON builds the libFuzzer targets of tests/fuzz (clang only); every
#                        target then carries libFuzzer's coverage instrumentation as well.
set(LAYERBENCH_SANITIZE "" CACHE STRING "Sanitizers for every target: address,undefined or thread")
option(LAYERBENCH_FUZZ "Build the libFuzzer targets of tests/fuzz (clang)" OFF)

# oneDNN (the PyPI build layerbench uses, as Debian's) runs on GNU OpenMP (libgomp); clang would
# link its own runtime (libomp), a second OpenMP in the process and not the one the release
# build (g++) tests. Included before find_package(OpenMP), this points clang at libgomp.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang" AND NOT DEFINED OpenMP_CXX_FLAGS)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=libgomp.so
                  OUTPUT_VARIABLE _lb_libgomp OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(EXISTS "${_lb_libgomp}")
    set(OpenMP_CXX_FLAGS -fopenmp=libgomp CACHE STRING "")
    set(OpenMP_CXX_LIB_NAMES gomp CACHE STRING "")
    set(OpenMP_gomp_LIBRARY "${_lb_libgomp}" CACHE FILEPATH "")
  endif()
endif()

if(LAYERBENCH_SANITIZE)
  # Any report is a failure: UBSan stops at its first report instead of logging and going on.
  add_compile_options(-fsanitize=${LAYERBENCH_SANITIZE} -fno-omit-frame-pointer
                      -fno-sanitize-recover=all)
  add_link_options(-fsanitize=${LAYERBENCH_SANITIZE})
endif()

if(LAYERBENCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "LAYERBENCH_FUZZ=ON needs clang (libFuzzer): use the asan preset.")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()
