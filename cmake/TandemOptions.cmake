# Build options; tandem_flags carries the warnings for tandem's own targets.
set(TDM_WITH_OPENCL AUTO CACHE STRING "Build the OpenCL backend: ON, OFF or AUTO (if found)")
set(TDM_WITH_VULKAN AUTO CACHE STRING "Build the Vulkan backend: ON, OFF or AUTO (if found)")
set(TDM_WITH_CLBLAST AUTO CACHE STRING "GEMM on OpenCL through CLBlast: ON, OFF or AUTO")
set(TDM_WITH_ONEDNN AUTO CACHE STRING
    "Convolutions on OpenCL CPU devices through oneDNN: ON, OFF or AUTO")
set(TDM_WITH_MPI AUTO CACHE STRING
    "Build libtandem_mpi, the transport of multi-worker jobs: ON, OFF or AUTO (if found)")
set_property(CACHE TDM_WITH_MPI PROPERTY STRINGS ON OFF AUTO)
set_property(CACHE TDM_WITH_OPENCL PROPERTY STRINGS ON OFF AUTO)
set_property(CACHE TDM_WITH_CLBLAST PROPERTY STRINGS ON OFF AUTO)
set_property(CACHE TDM_WITH_ONEDNN PROPERTY STRINGS ON OFF AUTO)
set_property(CACHE TDM_WITH_VULKAN PROPERTY STRINGS ON OFF AUTO)
option(TDM_WERROR "Treat compiler warnings as errors" OFF)
set(TDM_SANITIZE "" CACHE STRING
    "Build with sanitizers, e.g. address,undefined (ASan + LeakSanitizer + UBSan)")
option(BUILD_TESTING "Build the tests" ON)
option(TDM_FUZZ "Build the fuzz targets (tests/fuzz) with libFuzzer; needs clang" OFF)

add_library(tandem_flags INTERFACE)
target_compile_options(tandem_flags INTERFACE -Wall -Wextra -Wshadow -Wstrict-prototypes
                       -Wmissing-prototypes $<$<BOOL:${TDM_WERROR}>:-Werror>)
target_compile_definitions(tandem_flags INTERFACE _GNU_SOURCE)
if(WIN32)
  # MinGW's C99 printf (%zu, %lld), not msvcrt's. GCC still reads format(printf) as
  # msvcrt's, so the format checks are the Linux build's, on the same sources.
  target_compile_definitions(tandem_flags INTERFACE __USE_MINGW_ANSI_STDIO=1)
  target_compile_options(tandem_flags INTERFACE -Wno-format)
endif()
if(TDM_SANITIZE)
  # Any finding stops the program, so that a test fails on it rather than logging it.
  add_compile_options(-fsanitize=${TDM_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${TDM_SANITIZE})
  # Drivers stay loaded until exit (the Vulkan loader's own sanitizer option,
  # LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING, is newer than Debian 12's loader).
  add_compile_definitions(TDM_KEEP_DRIVERS_LOADED)
endif()
if(TDM_FUZZ) # coverage for libFuzzer in everything; its main only in the fuzz targets
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# The include root of a target that may include the internal headers listed: whole
# core modules (base, device, collective, ops, input, distribute, train) or single headers of one
# ("distribute/variable_access.h"), included as "base/error.h". It is a directory
# of links to those alone, so that including any other header does not compile.
# Every root holds the platform room (core/platform), which every module may use.
# Sets <var> to it.
function(tdm_module_root var name)
  set(root ${PROJECT_BINARY_DIR}/modules/${name})
  set(sees ${ARGN} platform)
  # The device layer's headers include the kernel table: who sees one sees both.
  if("device" IN_LIST sees)
    list(APPEND sees kernel)
  endif()
  list(REMOVE_DUPLICATES sees)
  # Another configuration's links go first (file(REMOVE) removes a link, never what
  # it points to; the directories left are tandem's own, empty by then).
  if(EXISTS ${root}/.sees)
    file(READ ${root}/.sees before)
  endif()
  if(NOT "${before}" STREQUAL "${sees}")
    file(GLOB entries LIST_DIRECTORIES true ${root}/*)
    foreach(entry IN LISTS entries)
      if(IS_SYMLINK ${entry})
        file(REMOVE ${entry})
      elseif(IS_DIRECTORY ${entry}) # a module's directory of single-header links
        file(GLOB links ${entry}/*)
        if(links)
          file(REMOVE ${links})
        endif()
        file(REMOVE_RECURSE ${entry})
      endif()
    endforeach()
  endif()
  file(MAKE_DIRECTORY ${root})
  foreach(item IN LISTS sees)
    if(item MATCHES "/")
      get_filename_component(module ${item} DIRECTORY)
      file(MAKE_DIRECTORY ${root}/${module})
    endif()
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/core/${item} ${root}/${item} SYMBOLIC)
  endforeach()
  # The collective engine's processes include the transport contract, which stands
  # alone with the transports.
  if("collective" IN_LIST sees)
    file(CREATE_LINK ${PROJECT_SOURCE_DIR}/transports/rank_transport.h ${root}/rank_transport.h
         SYMBOLIC)
  endif()
  file(WRITE ${root}/.sees "${sees}")
  set(${var} ${root} PARENT_SCOPE)
endfunction()

# An object library of tandem's: position-independent, exporting only TDM_API,
# seeing the public headers and the internal headers of the core MODULES it names
# (tdm_module_root). Collected in TDM_OBJECT_LIBRARIES for TandemLibrary.
function(tdm_object_library name)
  cmake_parse_arguments(L "" "" "MODULES" ${ARGN})
  add_library(${name} OBJECT ${L_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
                        C_VISIBILITY_PRESET hidden)
  tdm_module_root(root ${name} ${L_MODULES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include ${root})
  target_link_libraries(${name} PRIVATE tandem_flags Threads::Threads)
  if(WIN32) # TDM_API marks tandem.dll's exports (include/tandem/status.h)
    target_compile_definitions(${name} PRIVATE TDM_BUILDING_TANDEM)
  endif()
  set_property(GLOBAL APPEND PROPERTY TDM_OBJECT_LIBRARIES ${name})
endfunction()
