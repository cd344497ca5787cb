# Optional CUDA: LAYERBENCH_CUDA=AUTO|ON|OFF.
# Outputs: LAYERBENCH_HAVE_CUDA, the imported targets layerbench::cudnn and layerbench::cublaslt,
# LAYERBENCH_CUDNN_VERSION, and the function layerbench_set_runpath(target).

set(LAYERBENCH_HAVE_CUDA OFF)
set(_lb_runpath "${LAYERBENCH_ONEDNN_LIBRARY_DIR}")  # LayerbenchOnednn.cmake: empty, or .onednn/lib

if(NOT LAYERBENCH_CUDA STREQUAL "OFF")
  find_package(CUDAToolkit QUIET)
  set(_lb_missing "")
  if(NOT CUDAToolkit_FOUND)
    set(_lb_missing "the CUDA toolkit (nvcc, cudart, cuBLAS)")
  else()
    # cuDNN ships no CMake config: find the header and the library, honouring CUDNN_ROOT.
    set(_lb_cudnn_hints ${CUDNN_ROOT} $ENV{CUDNN_ROOT} ${CUDAToolkit_LIBRARY_ROOT})
    find_path(CUDNN_INCLUDE_DIR cudnn_version.h
              HINTS ${_lb_cudnn_hints} ${CUDAToolkit_INCLUDE_DIRS} PATH_SUFFIXES include)
    find_library(CUDNN_LIBRARY cudnn
                 HINTS ${_lb_cudnn_hints} ${CUDAToolkit_LIBRARY_DIR} PATH_SUFFIXES lib64 lib)
    if(NOT CUDNN_INCLUDE_DIR OR NOT CUDNN_LIBRARY)
      set(_lb_missing "cuDNN (set CUDNN_ROOT to its folder)")
    endif()
  endif()

  if(_lb_missing)
    if(LAYERBENCH_CUDA STREQUAL "ON")
      message(FATAL_ERROR "LAYERBENCH_CUDA=ON but ${_lb_missing} was not found.")
    endif()
    message(STATUS "layerbench: CPU-only build, ${_lb_missing} not found (GPU backends disabled).")
  else()
    file(STRINGS "${CUDNN_INCLUDE_DIR}/cudnn_version.h" _lb_cudnn_defs
         REGEX "#define CUDNN_(MAJOR|MINOR|PATCHLEVEL) ")
    foreach(part MAJOR MINOR PATCHLEVEL)
      string(REGEX MATCH "CUDNN_${part} ([0-9]+)" _ "${_lb_cudnn_defs}")
      set(_lb_cudnn_${part} "${CMAKE_MATCH_1}")
    endforeach()
    set(LAYERBENCH_CUDNN_VERSION "${_lb_cudnn_MAJOR}.${_lb_cudnn_MINOR}.${_lb_cudnn_PATCHLEVEL}")

    add_library(layerbench::cudnn UNKNOWN IMPORTED)
    set_target_properties(layerbench::cudnn PROPERTIES
      IMPORTED_LOCATION "${CUDNN_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CUDNN_INCLUDE_DIR}")

    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "75;80;86;89;90")   # Turing to Hopper
    endif()
    if(NOT DEFINED CMAKE_CUDA_COMPILER)
      set(CMAKE_CUDA_COMPILER "${CUDAToolkit_NVCC_EXECUTABLE}")
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(LAYERBENCH_HAVE_CUDA ON)

    # cuBLASLt: the toolkit's, or CUBLASLT_LIBRARY, as cuDNN may come from PyTorch's pip
    # packages (nvidia/cu13/lib holds libcublasLt.so.13 without an unversioned link).
    add_library(layerbench::cublaslt INTERFACE IMPORTED)
    if(CUBLASLT_LIBRARY)
      set_target_properties(layerbench::cublaslt PROPERTIES
        INTERFACE_LINK_LIBRARIES "${CUBLASLT_LIBRARY}"
        INTERFACE_INCLUDE_DIRECTORIES "${CUDAToolkit_INCLUDE_DIRS}")
      get_filename_component(_lb_cublaslt_dir "${CUBLASLT_LIBRARY}" DIRECTORY)
      get_filename_component(_lb_cublaslt_dir "${_lb_cublaslt_dir}" REALPATH)
      list(APPEND _lb_runpath "${_lb_cublaslt_dir}")
      message(STATUS "layerbench: cuBLASLt from ${CUBLASLT_LIBRARY}")
    else()
      set_target_properties(layerbench::cublaslt PROPERTIES INTERFACE_LINK_LIBRARIES CUDA::cublasLt)
    endif()

    get_filename_component(_lb_cudnn_dir "${CUDNN_LIBRARY}" DIRECTORY)
    get_filename_component(_lb_cudnn_dir "${_lb_cudnn_dir}" REALPATH)
    list(APPEND _lb_runpath "${CUDAToolkit_LIBRARY_DIR}" "${_lb_cudnn_dir}")
    list(REMOVE_DUPLICATES _lb_runpath)
    list(FILTER _lb_runpath EXCLUDE REGEX "^$")
    message(STATUS "layerbench: GPU backends on: CUDA ${CUDAToolkit_VERSION}, "
                   "cuDNN ${LAYERBENCH_CUDNN_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES}")
  endif()
endif()

# The binary must start without LD_LIBRARY_PATH: give it a run path to the CUDA and cuDNN
# libraries it was built against and to a oneDNN outside the system folders (.onednn/lib), in
# the build tree and after install (one explicit list: the build-tree default would add an
# empty entry, which the loader reads as the current folder).
function(layerbench_set_runpath target)
  if(_lb_runpath)
    set_target_properties(${target} PROPERTIES
      BUILD_WITH_INSTALL_RPATH ON INSTALL_RPATH "${_lb_runpath}")
  endif()
endfunction()
