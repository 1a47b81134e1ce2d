# Cross-builds tandem for 64-bit Windows with Debian's MinGW-w64 GCC, running what
# the build and ctest run under Wine (docs/WINDOWS.md, scripts/build-windows.sh).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(tdm_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${tdm_mingw}-gcc)
set(CMAKE_RC_COMPILER ${tdm_mingw}-windres)
# Debian's wine64 keeps its program in /usr/lib/wine. The build runs one program of
# its own (the Vulkan shaders' bindings from the kernel table) under it.
find_program(TDM_WINE64 NAMES wine64 wine PATHS /usr/lib/wine DOC "Wine, which runs Windows programs")
set(CMAKE_CROSSCOMPILING_EMULATOR ${TDM_WINE64})

# The OpenCL and Vulkan headers are the Khronos headers, the same on every system:
# Debian's are reached through a folder of links to them alone, so that MinGW never
# sees glibc's headers in /usr/include.
set(tdm_khronos ${CMAKE_BINARY_DIR}/khronos)
# CLBlast's C header is its own and as plain: a user's clblast.dll is then opened at
# run time, as libclblast.so.1 is on Linux.
foreach(dir CL vulkan vk_video clblast_c.h)
  if(EXISTS /usr/include/${dir} AND NOT EXISTS ${tdm_khronos}/include/${dir})
    file(MAKE_DIRECTORY ${tdm_khronos}/include)
    file(CREATE_LINK /usr/include/${dir} ${tdm_khronos}/include/${dir} SYMBOLIC)
  endif()
endforeach()

set(CMAKE_FIND_ROOT_PATH /usr/${tdm_mingw} ${tdm_khronos})
# Programs (glslangValidator, spirv-val) are the build machine's; the rest the target's.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The C runtime's helpers, winpthread and zlib linked in, so that tandem.exe and
# tandem.dll need no DLL beyond Windows' own and the drivers'.
set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_SHARED_LINKER_FLAGS_INIT -static)
set(ZLIB_USE_STATIC_LIBS ON)
