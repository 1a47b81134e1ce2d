# Compiles shaders/*.comp to SPIR-V with glslang at build time and embeds each as
# a uint32_t array (glslangValidator --vn), with tdm_spirv_module_find(name). Each
# module is validated by spirv-val as it is built: an invalid one fails the build.
# Shaders include shared code from
# shaders/*.glsl (GL_GOOGLE_include_directive) and kernel_bindings.glsl, which the
# host program `generator` writes from the kernel table: every module depends on
# every include, so an edited shader, include or table entry rebuilds.
#
# A kernel with a TDM_HALF_TWIN(NAME) line in the table (its float16 twin) has its
# shader compiled a second time with -DTDM_HALF_TWIN into the module NAME_f16: one
# source per kernel, whose twin section of kernel_bindings.glsl views the activations
# as halves. The lines are read when CMake configures, and an edit of the table
# configures again.
#
# A shader NAME_coopmat.comp is a matrix-engine module of kernel NAME
# (VK_KHR_cooperative_matrix): compiled for Vulkan 1.2 (the backend's instance
# version) by the compiler CoopmatCompiler.cmake found, and left out of the build
# where it found none; again with -DTDM_COOPMAT_EMULATED into NAME_coopmat_emulated,
# its fragments emulated, for tests on devices without the extension. The ordinary
# shaders keep the system's glslang and spirv-val
# (glslang-tools, spirv-tools): their SPIR-V is then the same with or without the
# optional one.
function(tdm_compile_shaders out_c generator)
  set(table ${PROJECT_SOURCE_DIR}/core/kernel/kernels.def)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${table})
  file(STRINGS ${table} twin_lines REGEX "^TDM_HALF_TWIN\\([A-Za-z0-9_]+\\)")
  set(twins "")
  foreach(line IN LISTS twin_lines)
    string(REGEX REPLACE "^TDM_HALF_TWIN\\(([A-Za-z0-9_]+)\\).*" "\\1" twin ${line})
    if(NOT EXISTS ${PROJECT_SOURCE_DIR}/shaders/${twin}.comp)
      message(FATAL_ERROR "kernels.def: TDM_HALF_TWIN(${twin}) but no shaders/${twin}.comp")
    endif()
    if(EXISTS ${PROJECT_SOURCE_DIR}/shaders/${twin}_f16.comp)
      message(FATAL_ERROR "shaders/${twin}_f16.comp: the twin of ${twin} is built from ${twin}.comp")
    endif()
    list(APPEND twins ${twin})
  endforeach()
  file(GLOB shaders CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/shaders/*.comp)
  file(GLOB shader_includes CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/shaders/*.glsl)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/spirv)
  set(bindings ${dir}/kernel_bindings.glsl)
  set(include_dirs -I${PROJECT_SOURCE_DIR}/shaders -I${dir})
  file(MAKE_DIRECTORY ${dir})
  add_custom_command(
    OUTPUT ${bindings}
    COMMAND ${generator} ${bindings}
    DEPENDS ${generator} ${PROJECT_SOURCE_DIR}/core/kernel/kernels.def
    COMMENT "Generating kernel_bindings.glsl from kernels.def"
    VERBATIM)
  set(headers "")
  set(includes "")
  set(entries "")
  foreach(shader IN LISTS shaders)
    get_filename_component(source ${shader} NAME)
    get_filename_component(base ${shader} NAME_WE)
    set(modules ${base})
    if(base IN_LIST twins)
      list(APPEND modules ${base}_f16)
    endif()
    set(glslang ${TDM_GLSLANG_VALIDATOR})
    set(spirv_val ${TDM_SPIRV_VAL})
    set(target_env vulkan1.1)
    if(base MATCHES "_coopmat$")
      if(NOT TDM_HAVE_COOPMAT)
        continue()
      endif()
      set(glslang ${TDM_COOPMAT_GLSLANG_USED})
      set(spirv_val ${TDM_COOPMAT_SPIRV_VAL_USED})
      set(target_env vulkan1.2)
      list(APPEND modules ${base}_emulated)
    endif()
    foreach(name IN LISTS modules)
      set(defines "")
      if(name MATCHES "_emulated$")
        set(defines -DTDM_COOPMAT_EMULATED)
      elseif(NOT name STREQUAL base)
        set(defines -DTDM_HALF_TWIN)
      endif()
      add_custom_command(
        OUTPUT ${dir}/${name}.h ${dir}/${name}.spv
        COMMAND ${glslang} -V --target-env ${target_env} --quiet ${include_dirs} ${defines}
                -o ${dir}/${name}.spv ${shader}
        COMMAND ${spirv_val} --target-env ${target_env} ${dir}/${name}.spv
        COMMAND ${glslang} -V --target-env ${target_env} --quiet ${include_dirs} ${defines}
                --vn tdm_spv_${name} -o ${dir}/${name}.h ${shader}
        DEPENDS ${shader} ${shader_includes} ${bindings}
        COMMENT "Compiling shader ${source} to SPIR-V module ${name}"
        VERBATIM)
      list(APPEND headers ${dir}/${name}.h)
      string(APPEND includes "#include \"${name}.h\"\n")
      string(APPEND entries "    {\"${name}\", tdm_spv_${name}, sizeof tdm_spv_${name}},\n")
    endforeach()
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/spirv_modules.c.in ${out_c}.in @ONLY)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -E copy ${out_c}.in ${out_c}
    DEPENDS ${out_c}.in ${headers}
    VERBATIM)
endfunction()
