# Install rules: headers, libkiln and libkiln-dev, the kiln tool (when built),
# their pkg-config files (kiln, kiln-dev) and a CMake package. `cmake --install build --prefix P`, or
# `make install PREFIX=P` at the top level.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/kiln DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS kiln_runtime EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
if(KILN_RUNTIME_DEV)
  install(TARGETS kiln_runtime_dev EXPORT kilnTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(KILN_BUILD_COOKER)
  install(TARGETS kiln EXPORT kilnTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# find_package(kiln) gives kiln::runtime, kiln::runtime_dev (the development
# runtime, which brings KILN_RUNTIME_DEV=1 to its users) and kiln::kiln, the
# tool, when it was installed (a build can cook its assets with it).
set(KILN_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/kilnConfig.cmake INSTALL_DESTINATION ${KILN_CMAKE_DIR})
# 0.x: minor versions are not compatible with each other.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${KILN_CMAKE_DIR})

# pkg-config: libkiln is static only, so what it needs is in Requires and Libs,
# where a plain `pkg-config --libs kiln` finds it (not only with --static).
# The prefix is found from the file's own place (${pcfiledir}), so
# `cmake --install --prefix P` needs no reconfigure.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(KILN_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
  set(KILN_PC_LIBDIR "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH KILN_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  set(KILN_PC_PREFIX "\${pcfiledir}/${KILN_PC_UP}")
  set(KILN_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
endif()
# kiln.pc: the shipping libkiln.
set(KILN_PC_NAME kiln)
set(KILN_PC_DESCRIPTION "Runtime library for kiln's cooked game assets (meshes, materials, KTX2 textures, packs)")
set(KILN_PC_LIBRARY kiln)
set(KILN_PC_DEV_CFLAGS "")
configure_file(${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in ${PROJECT_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# kiln-dev.pc: libkiln-dev, whose users see its development calls declared.
if(KILN_RUNTIME_DEV)
  set(KILN_PC_NAME kiln-dev)
  set(KILN_PC_DESCRIPTION "kiln's development runtime: libkiln with cooking on demand from kiln watch --serve")
  set(KILN_PC_LIBRARY kiln-dev)
  set(KILN_PC_DEV_CFLAGS " -DKILN_RUNTIME_DEV=1")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in ${PROJECT_BINARY_DIR}/kiln-dev.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/kiln-dev.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
