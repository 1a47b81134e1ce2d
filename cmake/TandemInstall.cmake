# make install: libraries, headers, the CLI, pkg-config and CMake package files.
install(TARGETS tandem tandem_static EXPORT tandemTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/tandem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tandemTargets NAMESPACE tandem:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)

include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/tandemConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tandemConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tandemConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tandemConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/tandemConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)

# A relocatable .pc: the prefix is found from the file's own place.
file(RELATIVE_PATH TDM_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(cmake/tandem.pc.in ${CMAKE_CURRENT_BINARY_DIR}/tandem.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tandem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
