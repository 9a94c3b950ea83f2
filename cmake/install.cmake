# `cmake --install`: the C/C++ headers, libhiprim.so (with its SONAME link), a CMake package
# (find_package(hiprim) -> target hiprim::hiprim) and a pkg-config file (hiprim.pc). Both package
# files are relocatable: they find the prefix from their own location, so `--prefix DIR` works.
include(CMakePackageConfigHelpers)
set(HIPRIM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hiprim)

install(TARGETS hiprim_shared EXPORT hiprimTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_COMPONENT hiprim COMPONENT hiprim)
install(FILES ${PROJECT_SOURCE_DIR}/include/hiprim/hiprim.h ${PROJECT_SOURCE_DIR}/include/hiprim/hiprim.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hiprim COMPONENT hiprim)
install(EXPORT hiprimTargets NAMESPACE hiprim:: DESTINATION ${HIPRIM_CMAKE_DIR} COMPONENT hiprim)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hiprimConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/hiprimConfig.cmake INSTALL_DESTINATION ${HIPRIM_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hiprimConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hiprimConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/hiprimConfigVersion.cmake
  DESTINATION ${HIPRIM_CMAKE_DIR} COMPONENT hiprim)

# hiprim.pc: prefix = ${pcfiledir} up to the install prefix.
set(_pc_dir ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH _pc_up /_root/${_pc_dir} /_root)
string(REGEX REPLACE "/$" "" HIPRIM_PC_PREFIX "\${pcfiledir}/${_pc_up}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/hiprim.pc.in ${CMAKE_CURRENT_BINARY_DIR}/hiprim.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hiprim.pc DESTINATION ${_pc_dir} COMPONENT hiprim)
