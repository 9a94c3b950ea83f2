# The primitive table core/primitives.def, read for the build (its rows: HIPRIM_PRIMITIVE(name, fill) and
# HIPRIM_PRIMITIVE_WITHOUT_DRIVER(name, fill)):
#   HIPRIM_PRIMITIVES            every row's name, in table order
#   HIPRIM_PRIMITIVES_OWN_FILL   the names whose fill column is own_fill
#   hiprim_primitive_sources(VAR PATTERN [OWN_FILL])
#                                PATTERN with <name> replaced by each primitive's name (by the
#                                own_fill ones only with OWN_FILL), e.g. "<name>_problem.cpp"
set(_hiprim_table "${PROJECT_SOURCE_DIR}/core/primitives.def")
set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_hiprim_table}")
file(STRINGS "${_hiprim_table}" _hiprim_rows REGEX "^HIPRIM_PRIMITIVE(_WITHOUT_DRIVER)?\\(")
set(HIPRIM_PRIMITIVES)
set(HIPRIM_PRIMITIVES_OWN_FILL)
foreach(_row IN LISTS _hiprim_rows)
  if(NOT _row MATCHES "^HIPRIM_PRIMITIVE(_WITHOUT_DRIVER)?\\(([a-z][a-z0-9_]*), (own_fill|default_fill)\\)$")
    message(FATAL_ERROR "${_hiprim_table}: row '${_row}' is not HIPRIM_PRIMITIVE(name, own_fill|default_fill)")
  endif()
  list(APPEND HIPRIM_PRIMITIVES ${CMAKE_MATCH_2})
  if(CMAKE_MATCH_3 STREQUAL "own_fill")
    list(APPEND HIPRIM_PRIMITIVES_OWN_FILL ${CMAKE_MATCH_2})
  endif()
endforeach()
if(NOT HIPRIM_PRIMITIVES)
  message(FATAL_ERROR "${_hiprim_table}: no HIPRIM_PRIMITIVE rows")
endif()

function(hiprim_primitive_sources var pattern)
  set(_names ${HIPRIM_PRIMITIVES})
  if(ARGV2 STREQUAL "OWN_FILL")
    set(_names ${HIPRIM_PRIMITIVES_OWN_FILL})
  endif()
  set(_out)
  foreach(_name IN LISTS _names)
    string(REPLACE "<name>" "${_name}" _file "${pattern}")
    list(APPEND _out "${_file}")
  endforeach()
  set(${var} ${_out} PARENT_SCOPE)
endfunction()
