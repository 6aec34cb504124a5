# cmake/Completion.cmake: bash completion for lvd and every lvd-TOOL
# (completion/lvd.bash.in, which reads the tools' --help when completing),
# installed under each command's name in share/bash-completion/completions,
# where bash-completion loads it on first use.
string(REPLACE ";" " " LVD_COMPLETE_NAMES "${LVD_TOOLS}")
configure_file(${CMAKE_SOURCE_DIR}/completion/lvd.bash.in ${CMAKE_BINARY_DIR}/completion/lvd @ONLY)
foreach(tool ${LVD_TOOLS})
  install(FILES ${CMAKE_BINARY_DIR}/completion/lvd
          DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME ${tool})
endforeach()
