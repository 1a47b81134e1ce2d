# Compiles shaders/*.comp to SPIR-V with glslang at build time and embeds each as
# a uint32_t array (glslangValidator --vn), with tdm_spirv_module_find(name).
# The .spv files are kept for the spirv-val test. Shaders include shared code from
# shaders/*.glsl (GL_GOOGLE_include_directive) and kernel_bindings.glsl, which the
# host program `generator` writes from the kernel table: every module depends on
# every include, so an edited shader, include or table entry rebuilds.
function(tdm_compile_shaders out_c out_spv_list generator)
  file(GLOB shaders CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/shaders/*.comp)
  file(GLOB shader_includes CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/shaders/*.glsl)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/spirv)
  set(bindings ${dir}/kernel_bindings.glsl)
  set(include_dirs -I${PROJECT_SOURCE_DIR}/shaders -I${dir})
  file(MAKE_DIRECTORY ${dir})
  add_custom_command(
    OUTPUT ${bindings}
    COMMAND ${generator} ${bindings}
    DEPENDS ${generator} ${PROJECT_SOURCE_DIR}/core/device/kernels.def
    COMMENT "Generating kernel_bindings.glsl from kernels.def"
    VERBATIM)
  set(headers "")
  set(spvs "")
  set(includes "")
  set(entries "")
  foreach(shader IN LISTS shaders)
    get_filename_component(name ${shader} NAME_WE)
    add_custom_command(
      OUTPUT ${dir}/${name}.h ${dir}/${name}.spv
      COMMAND ${TDM_GLSLANG_VALIDATOR} -V --target-env vulkan1.1 --quiet ${include_dirs}
              --vn tdm_spv_${name} -o ${dir}/${name}.h ${shader}
      COMMAND ${TDM_GLSLANG_VALIDATOR} -V --target-env vulkan1.1 --quiet ${include_dirs}
              -o ${dir}/${name}.spv ${shader}
      DEPENDS ${shader} ${shader_includes} ${bindings}
      COMMENT "Compiling shader ${name}.comp to SPIR-V"
      VERBATIM)
    list(APPEND headers ${dir}/${name}.h)
    list(APPEND spvs ${dir}/${name}.spv)
    string(APPEND includes "#include \"${name}.h\"\n")
    string(APPEND entries "    {\"${name}\", tdm_spv_${name}, sizeof tdm_spv_${name}},\n")
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/spirv_modules.c.in ${out_c}.in @ONLY)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -E copy ${out_c}.in ${out_c}
    DEPENDS ${out_c}.in ${headers}
    VERBATIM)
  set(${out_spv_list} ${spvs} PARENT_SCOPE)
endfunction()
