# The Windows cross build (preset windows-mingw) leaves `run` out: MinGW has no Google Benchmark
# or oneDNN to link. Its sources are still compiled here, not linked, with every warning an error,
# so the _WIN32 branches of the run path compile before a Windows user first builds them. MinGW
# is GCC: branches under _MSC_VER stay unchecked. Google Benchmark's and oneDNN's headers come
# from the build machine, in the private include folder of LayerbenchHostHeaders.cmake.
# oneDNN 3: the system's, else the one scripts/setup.sh unpacked (scripts/onednn-wheels.sh).
set(_lb_onednn_include "${CMAKE_SOURCE_DIR}/.onednn/include")
if(EXISTS "/usr/include/oneapi/dnnl/dnnl_version.h")
  file(STRINGS "/usr/include/oneapi/dnnl/dnnl_version.h" _lb_major
       REGEX "^#define DNNL_VERSION_MAJOR [0-9]+")
  if(_lb_major MATCHES "([0-9]+)$" AND CMAKE_MATCH_1 GREATER_EQUAL 3)
    set(_lb_onednn_include "/usr/include")
  endif()
endif()
foreach(_lb_header "/usr/include/benchmark" "${_lb_onednn_include}/oneapi")
  if(NOT EXISTS "${_lb_header}")
    message(FATAL_ERROR "${_lb_header} is missing: scripts/setup.sh installs libbenchmark-dev "
                        "and unpacks oneDNN 3")
  endif()
  get_filename_component(_lb_name "${_lb_header}" NAME)
  if(NOT EXISTS "${_lb_host_headers}/${_lb_name}")
    file(CREATE_LINK "${_lb_header}" "${_lb_host_headers}/${_lb_name}" SYMBOLIC)
  endif()
endforeach()
file(GLOB _lb_dnnl_headers "${_lb_onednn_include}/dnnl*.h*")
foreach(_lb_header IN LISTS _lb_dnnl_headers)
  get_filename_component(_lb_name "${_lb_header}" NAME)
  if(NOT EXISTS "${_lb_host_headers}/${_lb_name}")
    file(CREATE_LINK "${_lb_header}" "${_lb_host_headers}/${_lb_name}" SYMBOLIC)
  endif()
endforeach()

file(GLOB _lb_portable_sources CONFIGURE_DEPENDS
     harness/*.cpp harness/*/*.cpp harness/*/*/*.cpp kernels/cuda/logic/*.cpp
     kernels/onednn/*.cpp bench/*.cpp)
add_library(layerbench_windows_compile_check OBJECT ${_lb_portable_sources})
target_include_directories(layerbench_windows_compile_check PRIVATE
  "${CMAKE_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/generated")
target_link_libraries(layerbench_windows_compile_check PRIVATE
  nlohmann_json::nlohmann_json CLI11::CLI11)
target_compile_definitions(layerbench_windows_compile_check PRIVATE
  LAYERBENCH_HAVE_CUDA=0 LAYERBENCH_HAVE_RUN=1 LAYERBENCH_HAVE_OPENBLAS=0
  LAYERBENCH_BENCHMARK_VERSION="windows-compile-check")
# -O0: GCC 12's -O3 reports std::string's own operator+ (-Wrestrict, a known false positive).
# Compiled, not only parsed: inline assembly and intrinsics are checked at code generation.
target_compile_options(layerbench_windows_compile_check PRIVATE -O0 -Wall -Wextra -Werror)
