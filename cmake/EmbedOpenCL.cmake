# Embeds kernels/*.cl and the prelude kernels/*.clh into the library as NUL-terminated strings, with
# tdm_opencl_source_find(name); a kernel's #include of a family body (kernels/FAMILY.clh) is
# inlined. An edited kernel or family regenerates the file.
function(tdm_embed_opencl_sources out_c)
  file(GLOB sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/kernels/*.cl
       ${PROJECT_SOURCE_DIR}/kernels/*.clh)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out_c} "-DSOURCES=${sources}"
            -P ${PROJECT_SOURCE_DIR}/cmake/embed_opencl.cmake
    DEPENDS ${sources} ${PROJECT_SOURCE_DIR}/cmake/embed_opencl.cmake
    COMMENT "Embedding OpenCL kernels"
    VERBATIM)
endfunction()
