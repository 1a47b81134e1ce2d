# make install: libraries, headers, the CLI, pkg-config and CMake package files.
# The package files at the build tree's top work from the build tree itself (its
# libraries, the source tree's headers), for trying a consumer before installing;
# those to install are made apart, under install-files/, so neither is taken for
# the other. The tree's installed programs link the library statically and need no
# run path; a consumer's does (docs/GETTING_STARTED.md).
install(TARGETS tandem tandem_static EXPORT tandemTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/tandem DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT tandemTargets NAMESPACE tandem:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)
export(EXPORT tandemTargets NAMESPACE tandem:: FILE ${PROJECT_BINARY_DIR}/tandemTargets.cmake)

# tandemConfig.cmake includes the targets file beside it: the one template serves both.
include(CMakePackageConfigHelpers)
set(tdm_install_files ${PROJECT_BINARY_DIR}/install-files)
foreach(dir ${PROJECT_BINARY_DIR} ${tdm_install_files})
  configure_package_config_file(cmake/tandemConfig.cmake.in ${dir}/tandemConfig.cmake
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)
  write_basic_package_version_file(${dir}/tandemConfigVersion.cmake
    COMPATIBILITY SameMajorVersion)
endforeach()
install(FILES ${tdm_install_files}/tandemConfig.cmake ${tdm_install_files}/tandemConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tandem)

# The installed .pc is relocatable: the prefix is found from the file's own place.
file(RELATIVE_PATH tdm_pc_to_prefix /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
set(TDM_PC_PREFIX "\${pcfiledir}/${tdm_pc_to_prefix}")
set(TDM_PC_LIBDIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
set(TDM_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
configure_file(cmake/tandem.pc.in ${tdm_install_files}/tandem.pc @ONLY)
install(FILES ${tdm_install_files}/tandem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# The build tree's: its libraries where they are built, the headers in the source.
set(TDM_PC_PREFIX ${PROJECT_BINARY_DIR})
set(TDM_PC_LIBDIR $<TARGET_FILE_DIR:tandem>)
set(TDM_PC_INCLUDEDIR ${PROJECT_SOURCE_DIR}/include)
configure_file(cmake/tandem.pc.in ${tdm_install_files}/tandem-build.pc.in @ONLY)
file(GENERATE OUTPUT ${PROJECT_BINARY_DIR}/tandem.pc INPUT ${tdm_install_files}/tandem-build.pc.in)

# The man page and the shell completions, from the command's own help (its option
# tables), remade whenever the command is; a Windows build has neither.
if(NOT WIN32)
  set(tdm_docs ${PROJECT_BINARY_DIR}/share/man/man1/tandem.1 ${PROJECT_BINARY_DIR}/share/tandem.bash
      ${PROJECT_BINARY_DIR}/share/_tandem)
  add_custom_command(OUTPUT ${tdm_docs}
    COMMAND ${PROJECT_SOURCE_DIR}/cmake/tandem_docs.sh $<TARGET_FILE:tandem_cli> ${PROJECT_BINARY_DIR}/share
    COMMAND ${CMAKE_COMMAND} -E make_directory ${PROJECT_BINARY_DIR}/share/man/man1
    COMMAND ${CMAKE_COMMAND} -E rename ${PROJECT_BINARY_DIR}/share/tandem.1 ${PROJECT_BINARY_DIR}/share/man/man1/tandem.1
    DEPENDS tandem_cli ${PROJECT_SOURCE_DIR}/cmake/tandem_docs.sh
    COMMENT "Writing tandem's man page and shell completions from its option tables" VERBATIM)
  add_custom_target(tandem_docs ALL DEPENDS ${tdm_docs})
  install(FILES ${PROJECT_BINARY_DIR}/share/man/man1/tandem.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  install(FILES ${PROJECT_BINARY_DIR}/share/tandem.bash
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME tandem)
  install(FILES ${PROJECT_BINARY_DIR}/share/_tandem DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
endif()
