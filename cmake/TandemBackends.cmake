# Finds what each backend needs; sets TDM_HAVE_OPENCL / TDM_HAVE_VULKAN.
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
  find_package(OpenCL)
endif()
tdm_resolve_backend(OPENCL "${TDM_WITH_OPENCL}" "${OpenCL_FOUND}")

# GEMM on OpenCL devices runs on CLBlast; without it that one kernel is unsupported.
set(TDM_HAVE_CLBLAST OFF)
if(TDM_HAVE_OPENCL AND NOT TDM_WITH_CLBLAST STREQUAL "OFF")
  find_package(CLBlast CONFIG QUIET)
  if(TARGET clblast)
    set(TDM_HAVE_CLBLAST ON)
  elseif(TDM_WITH_CLBLAST STREQUAL "ON")
    message(FATAL_ERROR "TDM_WITH_CLBLAST=ON but CLBlast was not found (libclblast-dev)")
  endif()
endif()

if(NOT TDM_WITH_VULKAN STREQUAL "OFF")
  find_package(Vulkan COMPONENTS glslangValidator)
  set(vulkan_ready FALSE)
  if(Vulkan_FOUND AND Vulkan_glslangValidator_FOUND)
    set(vulkan_ready TRUE)
  endif()
endif()
tdm_resolve_backend(VULKAN "${TDM_WITH_VULKAN}" "${vulkan_ready}")

message(STATUS "tandem backends: reference yes, OpenCL ${TDM_HAVE_OPENCL} "
               "(CLBlast ${TDM_HAVE_CLBLAST}), Vulkan ${TDM_HAVE_VULKAN}")
