# Install rules: headers, libkiln, the kiln tool (when built), a pkg-config
# file and a CMake package. `cmake --install build --prefix P`, or
# `make install PREFIX=P` at the top level.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kiln_runtime EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(KILN_BUILD_COOKER)
  install(TARGETS kiln EXPORT kilnTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# find_package(kiln) gives kiln::runtime (and kiln::kiln, the tool, when it
# was installed: a build can cook its assets with it).
set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
# 0.x: minor versions are not compatible with each other.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${KILN_CMAKE_DIR})

# pkg-config: libkiln is static, so its dependencies are private ones
# (`pkg-config --static --libs kiln`). The prefix is found from the file's own
# place (${pcfiledir}), so `cmake --install --prefix P` needs no reconfigure.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(KILN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(KILN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH KILN_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  set(KILN_PC_PREFIX "\${pcfiledir}/${KILN_PC_UP}")
  set(KILN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
# A development libkiln declares its development calls for its users too.
set(KILN_PC_DEV_CFLAGS "")
if(KILN_RUNTIME_DEV)
  set(KILN_PC_DEV_CFLAGS " -DKILN_RUNTIME_DEV=1")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in ${PROJECT_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
