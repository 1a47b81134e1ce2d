# The shared library libtandem.so and the static libtandem.a, from one object set,
# and tandem_internal, the same objects as a plain archive for the tree's own tools
# and tests, which reach internals (the kernel table, the collectives).
# Object libraries pass no link dependencies on: name them here. The backends' loaders
# are not among them: they are opened at run time (core/base/library.h).
set(tandem_deps Threads::Threads m ZLIB::ZLIB ${CMAKE_DL_LIBS})

get_property(object_libraries GLOBAL PROPERTY TDM_OBJECT_LIBRARIES)
set(objects "")
foreach(lib IN LISTS object_libraries)
  list(APPEND objects $<TARGET_OBJECTS:${lib}>)
endforeach()
add_library(tandem SHARED ${objects})
add_library(tandem_internal STATIC ${objects})

# An archive exports every non-static symbol of its objects, which visibility does
# not hide. So libtandem.a holds one relocatable object made of them all, in which
# every hidden symbol is made local: it exports the public tdm_ API alone, like
# libtandem.so, and cannot clash with a program's own names.
set(merged ${CMAKE_CURRENT_BINARY_DIR}/tandem_static.o)
add_custom_command(OUTPUT ${merged}
  COMMAND ${CMAKE_LINKER} -r -o ${merged} ${objects}
  COMMAND ${CMAKE_OBJCOPY} --localize-hidden ${merged}
  DEPENDS ${objects} ${object_libraries}
  COMMENT "Merging libtandem.a's objects and hiding its internals"
  COMMAND_EXPAND_LISTS VERBATIM)
add_library(tandem_static STATIC ${merged})
set_target_properties(tandem_static PROPERTIES OUTPUT_NAME tandem LINKER_LANGUAGE C)

set_target_properties(tandem PROPERTIES VERSION ${PROJECT_VERSION}
                      SOVERSION ${PROJECT_VERSION_MAJOR})
if(WIN32) # tandem.dll, with its import library libtandem.dll.a
  set_target_properties(tandem PROPERTIES PREFIX "")
endif()
foreach(lib tandem tandem_static tandem_internal)
  target_include_directories(${lib} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${lib} PUBLIC ${tandem_deps})
endforeach()
add_library(tandem::tandem ALIAS tandem)
add_library(tandem::tandem_static ALIAS tandem_static)
