# cmake/ManPage.cmake: one man page, run at build time as
#   cmake -DHELP2MAN=... -DTOOL=bin/lvd-X -DLVD=bin/lvd -DTOOLS=lvd,lvd-X,...
#         -DREADME=README.md -DMANDIR=man -DLVD_DATADIR=/usr/share/llama-verdict
#         -DOUT=man/lvd-X.1 -P cmake/ManPage.cmake
# Everything on the page comes from what exists already, so it cannot drift:
# NAME from the dispatcher's tool list (`lvd --help`), SYNOPSIS, DESCRIPTION,
# OPTIONS and EXAMPLES from `TOOL --help` and the version from `TOOL --version`
# (help2man runs them), EXIT STATUS from the README's exit-code table, SEE ALSO
# from the list of tools. man/common.h2m (ENVIRONMENT, FILES; @LVD_DATADIR@ is
# the installed data directory) and, when it
# exists, man/TOOL.h2m add hand-written sections.
foreach(v HELP2MAN TOOL LVD TOOLS README MANDIR LVD_DATADIR OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "ManPage.cmake: -D${v}= is missing")
  endif()
endforeach()
get_filename_component(name "${TOOL}" NAME)
get_filename_component(outdir "${OUT}" DIRECTORY)
string(REPLACE "," ";" TOOLS "${TOOLS}")
list(SORT TOOLS)

# NAME: the dispatcher's one-line description of the tool.
execute_process(COMMAND "${LVD}" --help OUTPUT_VARIABLE lvd_help RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${LVD} --help failed (${rc})")
endif()
if(name STREQUAL "lvd")
  string(REGEX MATCH "\nllama-verdict: ([^\n]*[^.\n])\\.?\n" m "${lvd_help}")
else()
  string(REGEX REPLACE "^lvd-" "" sub "${name}")
  string(REGEX MATCH "\n  ${sub} +([^\n]*)\n" m "${lvd_help}")
endif()
if(NOT CMAKE_MATCH_1)
  message(FATAL_ERROR "${name}: no description for it in `lvd --help`")
endif()
set(description "${CMAKE_MATCH_1}")

# EXIT STATUS: the README's table, | code | meaning |.
file(STRINGS "${README}" readme)
set(in_table 0)
set(exit_status "")
foreach(line IN LISTS readme)
  if(line MATCHES "^#+ Exit codes")
    set(in_table 1)
  elseif(in_table AND line MATCHES "^\\| ([0-9]+) \\| (.*) \\|$")
    set(code "${CMAKE_MATCH_1}")
    set(text "${CMAKE_MATCH_2}")
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "`" "" text "${text}")
    string(REPLACE "**" "" text "${text}")
    string(APPEND exit_status ".TP\n.B ${code}\n${text}\n")
  elseif(in_table AND line MATCHES "^#")
    break()
  endif()
endforeach()
if(exit_status STREQUAL "")
  message(FATAL_ERROR "${README}: no exit-code table under an 'Exit codes' heading")
endif()

# The tool's own exit-status paragraph from its --help, before the table.
execute_process(COMMAND "${MANDIR}/help2man-input" --exit "${TOOL}" --help
  OUTPUT_VARIABLE own_exit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TOOL} --help failed (${rc})")
endif()
if(own_exit)
  string(REPLACE "\\" "\\\\" own_exit "${own_exit}")
  string(REGEX REPLACE "^([.'])" "\\\\&\\1" own_exit "${own_exit}")
  set(exit_status "${own_exit}\n.PP\nThe codes every tool uses:\n${exit_status}")
endif()

# SEE ALSO: the other tools.
set(see_also "")
foreach(t IN LISTS TOOLS)
  if(NOT t STREQUAL name)
    if(see_also)
      string(APPEND see_also ",\n")
    endif()
    string(APPEND see_also ".BR ${t} (1)")
  endif()
endforeach()

file(READ "${MANDIR}/common.h2m" common)
string(CONFIGURE "${common}" common @ONLY)
set(own "")
if(EXISTS "${MANDIR}/${name}.h2m")
  file(READ "${MANDIR}/${name}.h2m" own)
endif()
# Left-adjusted (.ad l): synopses, command lines and digests read better
# unjustified, and a long digest in an example cannot be justified at all.
file(WRITE "${outdir}/${name}.h2m"
  "[<SYNOPSIS]\n.ds AD l\n.ad l\n[EXIT STATUS]\n${exit_status}\n${common}\n${own}\n[SEE ALSO]\n${see_also}\n")

# help2man runs the tool through man/help2man-input (the usage block and the
# section headings in the form help2man reads), as a wrapper named after it.
file(MAKE_DIRECTORY "${outdir}/wrap")
file(WRITE "${outdir}/wrap/${name}" "#!/bin/sh\nexec \"${MANDIR}/help2man-input\" \"${TOOL}\" \"$@\"\n")
file(CHMOD "${outdir}/wrap/${name}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
  GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

execute_process(
  COMMAND "${CMAKE_COMMAND}" -E env LC_ALL=C NO_COLOR=1
          "${HELP2MAN}" --no-info --section=1 "--name=${description}"
          "--include=${outdir}/${name}.h2m" "--output=${OUT}.tmp" "${outdir}/wrap/${name}"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  file(REMOVE "${OUT}.tmp")
  message(FATAL_ERROR "help2man ${name} failed (${rc}): ${err}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
