# Finds what each backend needs to build; sets TDM_HAVE_OPENCL / TDM_HAVE_VULKAN /
# TDM_HAVE_CLBLAST / TDM_HAVE_ONEDNN. Only headers (and glslang for the shaders): the
# loaders libOpenCL.so.1, libclblast.so.1, libdnnl.so.2 and libvulkan.so.1 are opened
# at run time.
function(tdm_resolve_backend name option found)
  if(option STREQUAL "ON" AND NOT found)
    message(FATAL_ERROR "TDM_WITH_${name}=ON but its dependencies were not found")
  endif()
  if(found AND NOT option STREQUAL "OFF")
    set(TDM_HAVE_${name} ON PARENT_SCOPE)
  else()
    set(TDM_HAVE_${name} OFF PARENT_SCOPE)
  endif()
endfunction()

find_package(Threads REQUIRED)

if(NOT TDM_WITH_OPENCL STREQUAL "OFF")
  find_path(TDM_OPENCL_INCLUDE_DIR CL/cl.h DOC "OpenCL headers (opencl-c-headers)")
endif()
tdm_resolve_backend(OPENCL "${TDM_WITH_OPENCL}" "${TDM_OPENCL_INCLUDE_DIR}")

# GEMM on OpenCL devices runs on CLBlast; without it that one kernel is unsupported.
set(TDM_HAVE_CLBLAST OFF)
if(TDM_HAVE_OPENCL AND NOT TDM_WITH_CLBLAST STREQUAL "OFF")
  find_path(TDM_CLBLAST_INCLUDE_DIR clblast_c.h DOC "CLBlast's C header (libclblast-dev)")
  if(TDM_CLBLAST_INCLUDE_DIR)
    set(TDM_HAVE_CLBLAST ON)
  elseif(TDM_WITH_CLBLAST STREQUAL "ON")
    message(FATAL_ERROR "TDM_WITH_CLBLAST=ON but clblast_c.h was not found (libclblast-dev)")
  endif()
endif()

# The implicit convolutions on OpenCL CPU devices run on oneDNN; without it those
# devices convolve lowered.
set(TDM_HAVE_ONEDNN OFF)
if(TDM_HAVE_OPENCL AND NOT TDM_WITH_ONEDNN STREQUAL "OFF")
  find_path(TDM_ONEDNN_INCLUDE_DIR oneapi/dnnl/dnnl.h DOC "oneDNN's C header (libdnnl-dev)")
  if(TDM_ONEDNN_INCLUDE_DIR)
    set(TDM_HAVE_ONEDNN ON)
  elseif(TDM_WITH_ONEDNN STREQUAL "ON")
    message(FATAL_ERROR "TDM_WITH_ONEDNN=ON but oneapi/dnnl/dnnl.h was not found (libdnnl-dev)")
  endif()
endif()

set(vulkan_ready FALSE)
if(NOT TDM_WITH_VULKAN STREQUAL "OFF")
  find_path(TDM_VULKAN_INCLUDE_DIR vulkan/vulkan.h DOC "Vulkan headers (libvulkan-dev)")
  find_program(TDM_GLSLANG_VALIDATOR glslangValidator DOC "glslang (glslang-tools)")
  # Every SPIR-V module passes spirv-val as it is built (CompileShaders.cmake).
  find_program(TDM_SPIRV_VAL spirv-val DOC "spirv-val (spirv-tools)")
  if(TDM_VULKAN_INCLUDE_DIR AND TDM_GLSLANG_VALIDATOR AND TDM_SPIRV_VAL)
    set(vulkan_ready TRUE)
  endif()
endif()
tdm_resolve_backend(VULKAN "${TDM_WITH_VULKAN}" "${vulkan_ready}")
if(TDM_HAVE_VULKAN)
  include(CoopmatCompiler)
endif()

message(STATUS "tandem backends: reference yes, OpenCL ${TDM_HAVE_OPENCL} "
               "(CLBlast ${TDM_HAVE_CLBLAST}, oneDNN ${TDM_HAVE_ONEDNN}), Vulkan ${TDM_HAVE_VULKAN}")
