# Build options; tandem_flags carries the warnings for tandem's own targets.
set(TDM_WITH_OPENCL AUTO CACHE STRING "Build the OpenCL backend: ON, OFF or AUTO (if found)")
set(TDM_WITH_VULKAN AUTO CACHE STRING "Build the Vulkan backend: ON, OFF or AUTO (if found)")
set(TDM_WITH_CLBLAST AUTO CACHE STRING "GEMM on OpenCL through CLBlast: ON, OFF or AUTO")
set(TDM_WITH_MPI AUTO CACHE STRING
    "Build libtandem_mpi, the transport of multi-worker jobs: ON, OFF or AUTO (if found)")
set_property(CACHE TDM_WITH_MPI PROPERTY STRINGS ON OFF AUTO)
set_property(CACHE TDM_WITH_OPENCL PROPERTY STRINGS ON OFF AUTO)
set_property(CACHE TDM_WITH_CLBLAST PROPERTY STRINGS ON OFF AUTO)
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
if(TDM_SANITIZE)
  # Any finding stops the program, so that a test fails on it rather than logging it.
  add_compile_options(-fsanitize=${TDM_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${TDM_SANITIZE})
endif()
if(TDM_FUZZ) # coverage for libFuzzer in everything; its main only in the fuzz targets
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# An object library of tandem's: position-independent, exporting only TDM_API,
# seeing the public headers and the core's internal ones. Collected in
# TDM_OBJECT_LIBRARIES for TandemLibrary.
function(tdm_object_library name)
  add_library(${name} OBJECT ${ARGN})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
                        C_VISIBILITY_PRESET hidden)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/include
                             ${PROJECT_SOURCE_DIR}/core/device)
  target_link_libraries(${name} PRIVATE tandem_flags Threads::Threads)
  set_property(GLOBAL APPEND PROPERTY TDM_OBJECT_LIBRARIES ${name})
endfunction()
