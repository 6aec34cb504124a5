# cmake/ManPage.cmake: one man page, run at build time as
#   cmake -DHELP2MAN=... -DTOOL=bin/lvd-X -DLVD=bin/lvd -DTOOLS=lvd,lvd-X,...
#         -DREADME=README.md -DMANDIR=man -DLVD_DATADIR=/usr/share/llama-verdict
#         -DOUT=man/lvd-X.1 -P cmake/ManPage.cmake
# What the page says comes from one place each, so it cannot drift: NAME from
# the dispatcher's tool list (`lvd --help`); SYNOPSIS, DESCRIPTION, OPTIONS and
# EXAMPLES from `TOOL --help` and the version from `TOOL --version` (help2man
# runs them); the tool's prose (how it works, what it records, its own files
# and environment, pointers into docs/) from man/TOOL.h2m beside them, which
# every tool has; EXIT STATUS from the tool's --help and the README's
# exit-code table (the codes every tool uses); man/common.h2m (ENVIRONMENT,
# FILES; @LVD_DATADIR@ is the installed data directory) and SEE ALSO (the
# other tools) for every page.
# Not for the text itself: that is the tools' --help and man/*.h2m.
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

# The tool's prose, man/NAME.h2m: its sections, without the header comment
# before them. Its [EXIT STATUS], if any, is taken out here and placed below.
if(NOT EXISTS "${MANDIR}/${name}.h2m")
  message(FATAL_ERROR "${MANDIR}/${name}.h2m is missing: every tool's page takes its prose from it")
endif()
file(READ "${MANDIR}/${name}.h2m" own)
string(REGEX MATCH "(^|\n)\\[" first "${own}")
if(NOT first)
  message(FATAL_ERROR "${MANDIR}/${name}.h2m: no [SECTION] heading")
endif()
string(FIND "${own}" "${first}" at)
string(SUBSTRING "${own}" ${at} -1 own)
set(own_exit_more "")
string(FIND "${own}" "[EXIT STATUS]\n" at)
if(at GREATER -1)
  string(SUBSTRING "${own}" 0 ${at} before)
  math(EXPR at "${at} + 14")
  string(SUBSTRING "${own}" ${at} -1 rest)
  string(FIND "${rest}" "\n[" end)
  if(end LESS 0)
    set(end -1)
  endif()
  string(SUBSTRING "${rest}" 0 ${end} own_exit_more)
  if(end LESS 0)
    set(rest "")
  else()
    string(SUBSTRING "${rest}" ${end} -1 rest)
  endif()
  set(own "${before}${rest}")
  string(REGEX REPLACE "\n+$" "" own_exit_more "${own_exit_more}")
endif()

# EXIT STATUS: the tool's paragraph from its --help, what its man/NAME.h2m
# adds, then the README's table, | code | meaning |, the codes every tool uses.
execute_process(COMMAND "${MANDIR}/help2man-input" --exit "${TOOL}" --help
  OUTPUT_VARIABLE own_exit OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${TOOL} --help failed (${rc})")
endif()
set(exit_status "")
if(own_exit)
  string(REPLACE "\\" "\\\\" own_exit "${own_exit}")
  string(REGEX REPLACE "^([.'])" "\\\\&\\1" own_exit "${own_exit}")
  string(APPEND exit_status "${own_exit}\n.PP\n")
endif()
if(own_exit_more)
  string(APPEND exit_status "${own_exit_more}\n.PP\n")
endif()
if(exit_status)
  string(APPEND exit_status "The codes every tool uses:\n")
endif()
file(STRINGS "${README}" readme)
set(in_table 0)
set(table "")
foreach(line IN LISTS readme)
  if(line MATCHES "^#+ Exit codes")
    set(in_table 1)
  elseif(in_table AND line MATCHES "^\\| ([0-9]+) \\| (.*) \\|$")
    set(code "${CMAKE_MATCH_1}")
    set(text "${CMAKE_MATCH_2}")
    string(REPLACE "\\" "\\\\" text "${text}")
    string(REPLACE "`" "" text "${text}")
    string(REPLACE "**" "" text "${text}")
    string(APPEND table ".TP\n.B ${code}\n${text}\n")
  elseif(in_table AND line MATCHES "^#")
    break()
  endif()
endforeach()
if(table STREQUAL "")
  message(FATAL_ERROR "${README}: no exit-code table under an 'Exit codes' heading")
endif()
string(APPEND exit_status "${table}")

# SEE ALSO: the other tools, before the pointers of the tool's prose.
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
# Left-adjusted (.ad l): synopses, command lines and digests read better
# unjustified, and a long digest in an example cannot be justified at all.
# The prose comes before EXIT STATUS, so that its sections follow OPTIONS;
# in ENVIRONMENT and FILES the tool's own entries come before the common ones.
file(WRITE "${outdir}/${name}.h2m"
  "[<SYNOPSIS]\n.ds AD l\n.ad l\n[SEE ALSO]\n${see_also}\n${own}\n[EXIT STATUS]\n${exit_status}\n${common}\n")

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
