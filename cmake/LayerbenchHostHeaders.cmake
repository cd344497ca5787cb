# Cross builds (preset windows-mingw): nlohmann_json and CLI11 are header-only, so the build
# machine's Debian headers serve any target. They get a private include folder of links: the
# packages' CMake configs would add /usr/include itself, whose Linux C library headers must not
# stand in for MinGW's own.
set(_lb_host_headers "${CMAKE_BINARY_DIR}/host-headers")
file(MAKE_DIRECTORY "${_lb_host_headers}")
foreach(_lb_dir nlohmann CLI)
  if(NOT IS_DIRECTORY "/usr/include/${_lb_dir}")
    message(FATAL_ERROR "/usr/include/${_lb_dir} is missing: scripts/setup.sh installs "
                        "nlohmann-json3-dev and libcli11-dev")
  endif()
  if(NOT EXISTS "${_lb_host_headers}/${_lb_dir}")
    file(CREATE_LINK "/usr/include/${_lb_dir}" "${_lb_host_headers}/${_lb_dir}" SYMBOLIC)
  endif()
endforeach()
add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
add_library(CLI11::CLI11 INTERFACE IMPORTED)
set_target_properties(nlohmann_json::nlohmann_json CLI11::CLI11 PROPERTIES
  INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_lb_host_headers}"
  INTERFACE_INCLUDE_DIRECTORIES "${_lb_host_headers}")
