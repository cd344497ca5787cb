# The C++ side of the operation-kind table bench/op_kinds.json: OpKind and one constexpr row per
# kind, generated at configure time so that the table is the one place a kind is named. Used as
# include(LayerbenchOpKinds) + layerbench_generate_op_kinds(TABLE OUTPUT), or as a script:
#   cmake -DTABLE=bench/op_kinds.json -DOUTPUT=op_kinds_table.hpp -P cmake/LayerbenchOpKinds.cmake
# A malformed table stops the configure step with a message naming the file and the field.
if(CMAKE_SCRIPT_MODE_FILE)
  cmake_minimum_required(VERSION 3.25)  # as a script, for the policies the functions use
endif()

function(_lb_op_kinds_fail table field message)
  message(FATAL_ERROR "${table}: ${field}: ${message}")
endfunction()

# `out` = the JSON array at `json`'s `member...` as a list of strings, each a C++ identifier
# when `identifiers` is set.
function(_lb_op_kinds_strings out table json field identifiers)
  string(JSON type ERROR_VARIABLE error TYPE "${json}" ${ARGN})
  if(error OR NOT type STREQUAL "ARRAY")
    _lb_op_kinds_fail("${table}" "${field}" "expected an array of strings")
  endif()
  string(JSON count LENGTH "${json}" ${ARGN})
  set(values "")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON type TYPE "${json}" ${ARGN} ${i})
      string(JSON value GET "${json}" ${ARGN} ${i})
      if(NOT type STREQUAL "STRING" OR value STREQUAL "")
        _lb_op_kinds_fail("${table}" "${field}[${i}]" "expected a non-empty string")
      endif()
      if(identifiers AND NOT value MATCHES "^[a-z][a-z0-9_]*$")
        _lb_op_kinds_fail("${table}" "${field}[${i}]"
                          "\"${value}\" is not a name of lower-case letters, digits and '_'")
      endif()
      list(APPEND values "${value}")
    endforeach()
  endif()
  set(${out} "${values}" PARENT_SCOPE)
endfunction()

# `values` as a constexpr array `array` appended to `lists_var`, and `out` = the span a row holds
# (an empty span for no values: C++ has no empty arrays).
function(_lb_op_kinds_cxx_span out lists_var array values)
  if(values STREQUAL "")
    set(${out} "{}" PARENT_SCOPE)
    return()
  endif()
  set(items "")
  foreach(value IN LISTS values)
    list(APPEND items "\"${value}\"")
  endforeach()
  list(JOIN items ", " joined)
  set(${lists_var} "${${lists_var}}inline constexpr std::string_view ${array}[] = {${joined}};\n"
      PARENT_SCOPE)
  set(${out} "op_kind_rows::${array}" PARENT_SCOPE)
endfunction()

function(layerbench_generate_op_kinds table output)
  file(READ "${table}" json)
  string(JSON schema ERROR_VARIABLE error GET "${json}" schema)
  if(error OR NOT schema STREQUAL "layerbench-op-kinds/1")
    _lb_op_kinds_fail("${table}" "schema" "expected \"layerbench-op-kinds/1\"")
  endif()
  _lb_op_kinds_strings(groups "${table}" "${json}" "groups" ON groups)
  _lb_op_kinds_strings(common "${table}" "${json}" "common_fields" ON common_fields)
  string(JSON count ERROR_VARIABLE error LENGTH "${json}" kinds)
  if(error OR count EQUAL 0)
    _lb_op_kinds_fail("${table}" "kinds" "expected a non-empty array of kinds")
  endif()

  set(names "")
  set(lists "")
  set(rows "")
  math(EXPR last "${count} - 1")
  foreach(i RANGE ${last})
    set(at "kinds[${i}]")
    string(JSON name ERROR_VARIABLE error GET "${json}" kinds ${i} name)
    if(error OR NOT name MATCHES "^[a-z][a-z0-9_]*$")
      _lb_op_kinds_fail("${table}" "${at}.name" "expected a name of lower-case letters, digits and '_'")
    endif()
    if(name IN_LIST names)
      _lb_op_kinds_fail("${table}" "${at}.name" "\"${name}\" is named twice")
    endif()
    string(JSON group ERROR_VARIABLE error GET "${json}" kinds ${i} group)
    if(error OR NOT group IN_LIST groups)
      list(JOIN groups ", " known)
      _lb_op_kinds_fail("${table}" "${at}.group" "expected one of the table's groups: ${known}")
    endif()
    string(JSON bound_type ERROR_VARIABLE error TYPE "${json}" kinds ${i} memory_bound)
    if(error OR NOT bound_type STREQUAL "BOOLEAN")
      _lb_op_kinds_fail("${table}" "${at}.memory_bound" "expected true or false")
    endif()
    string(JSON bound GET "${json}" kinds ${i} memory_bound)
    string(JSON reference ERROR_VARIABLE error GET "${json}" kinds ${i} reference)
    if(error OR reference STREQUAL "")
      _lb_op_kinds_fail("${table}" "${at}.reference" "expected the file of its reference")
    endif()
    _lb_op_kinds_strings(fields "${table}" "${json}" "${at}.fields" ON kinds ${i} fields)
    _lb_op_kinds_strings(algorithms "${table}" "${json}" "${at}.algorithms" ON
                         kinds ${i} algorithms)
    list(APPEND names "${name}")

    _lb_op_kinds_cxx_span(fields_cxx lists "${name}_fields" "${fields}")
    _lb_op_kinds_cxx_span(algorithms_cxx lists "${name}_algorithms" "${algorithms}")
    if(bound)
      set(bound_cxx true)
    else()
      set(bound_cxx false)
    endif()
    string(APPEND rows
      "    {OpKind::${name}, \"${name}\", \"${group}\", ${bound_cxx}, ${fields_cxx},\n"
      "     ${algorithms_cxx}, \"${reference}\"},\n")
  endforeach()

  list(JOIN names ", " enum_values)
  set(tables "")
  _lb_op_kinds_cxx_span(groups_cxx tables "op_kind_groups" "${groups}")
  _lb_op_kinds_cxx_span(common_cxx tables "op_common_fields" "${common}")
  file(CONFIGURE OUTPUT "${output}" @ONLY CONTENT [=[
#pragma once
// Generated from bench/op_kinds.json by cmake/LayerbenchOpKinds.cmake: edit the table, not this.
#include <span>
#include <string_view>

namespace lb {

enum class OpKind { @enum_values@ };

// One kind: its name in model files, the group its time is counted in, whether it is
// memory-bound, the fields an op of it may have beside the common ones, the `algorithm`
// values it takes (none: it takes no `algorithm`) and the file of its double-precision reference.
struct OpKindRow {
  OpKind kind;
  std::string_view name;
  std::string_view group;
  bool memory_bound;
  std::span<const std::string_view> fields;
  std::span<const std::string_view> algorithms;
  std::string_view reference;
};

namespace op_kind_rows {
@tables@@lists@}  // namespace op_kind_rows

// The groups in the order results list them, and the fields every op has.
inline constexpr std::span<const std::string_view> op_kind_groups = @groups_cxx@;
inline constexpr std::span<const std::string_view> op_common_fields = @common_cxx@;

inline constexpr OpKindRow op_kind_table[] = {
@rows@};

}  // namespace lb
]=])
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  layerbench_generate_op_kinds("${TABLE}" "${OUTPUT}")
endif()
