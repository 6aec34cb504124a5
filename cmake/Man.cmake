# cmake/Man.cmake: a man page for lvd and every lvd-TOOL, generated at build
# time by help2man from the built tool's --help and --version and the tool's
# prose in man/lvd-TOOL.h2m (see cmake/ManPage.cmake), installed to
# share/man/man1. Without help2man the pages are skipped with a message;
# scripts/deps --test installs it.
find_program(HELP2MAN help2man)
set(LVD_MAN_PAGES "")
if(NOT HELP2MAN)
  message(STATUS "help2man not found: man pages are skipped (scripts/deps --test installs it)")
  return()
endif()
file(GLOB LVD_MAN_INCLUDES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/man/*.h2m)
string(REPLACE ";" "," lvd_tool_list "${LVD_TOOLS}")
foreach(tool ${LVD_TOOLS})
  set(page ${CMAKE_BINARY_DIR}/man/${tool}.1)
  add_custom_command(OUTPUT ${page}
    COMMAND ${CMAKE_COMMAND} -DHELP2MAN=${HELP2MAN} -DTOOL=$<TARGET_FILE:${tool}>
            -DLVD=$<TARGET_FILE:lvd> -DTOOLS=${lvd_tool_list} -DREADME=${CMAKE_SOURCE_DIR}/README.md
            -DMANDIR=${CMAKE_SOURCE_DIR}/man -DLVD_DATADIR=${CMAKE_INSTALL_FULL_DATADIR}/llama-verdict
            -DOUT=${page} -P ${CMAKE_SOURCE_DIR}/cmake/ManPage.cmake
    DEPENDS ${tool} lvd ${CMAKE_SOURCE_DIR}/cmake/ManPage.cmake ${CMAKE_SOURCE_DIR}/README.md
            ${CMAKE_SOURCE_DIR}/man/help2man-input ${LVD_MAN_INCLUDES}
    COMMENT "help2man ${tool}.1"
    VERBATIM)
  list(APPEND LVD_MAN_PAGES ${page})
endforeach()
add_custom_target(man ALL DEPENDS ${LVD_MAN_PAGES})
install(FILES ${LVD_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
