# oneDNN 3 (the backend uses its API; 2.x is not supported, docs/building-onednn.md): the system's
# when it is 3.x, else the PyPI build that scripts/setup.sh unpacks into .onednn/. No flags needed;
# CMAKE_PREFIX_PATH or dnnl_DIR still choose another. Sets LAYERBENCH_ONEDNN_LIBRARY_DIR to the
# library's folder when it is outside the linker's default folders (empty otherwise), for the
# binaries' run path.
find_package(dnnl 3 CONFIG HINTS "${CMAKE_CURRENT_SOURCE_DIR}/.onednn")
if(NOT dnnl_FOUND)
  message(FATAL_ERROR "layerbench needs oneDNN 3 (found none; Debian 12's libdnnl-dev is 2.6.3): "
                      "run scripts/setup.sh, which unpacks oneDNN 3 from PyPI into "
                      "${CMAKE_CURRENT_SOURCE_DIR}/.onednn, or point CMAKE_PREFIX_PATH at one.")
endif()
if(NOT DNNL_CPU_THREADING_RUNTIME STREQUAL "OMP")
  message(WARNING "layerbench: this oneDNN threads with ${DNNL_CPU_THREADING_RUNTIME}, not OpenMP: "
                  "run --threads cannot set its thread count")
endif()

get_target_property(_lb_dnnl_location DNNL::dnnl IMPORTED_LOCATION_RELEASE)
if(NOT _lb_dnnl_location)
  get_target_property(_lb_dnnl_location DNNL::dnnl IMPORTED_LOCATION)
endif()
get_filename_component(LAYERBENCH_ONEDNN_LIBRARY_DIR "${_lb_dnnl_location}" DIRECTORY)
if(LAYERBENCH_ONEDNN_LIBRARY_DIR IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
  set(LAYERBENCH_ONEDNN_LIBRARY_DIR "")
endif()
message(STATUS "layerbench: oneDNN ${dnnl_VERSION} (${DNNL_CPU_THREADING_RUNTIME} threads) "
               "from ${dnnl_DIR}")
