# cmake/Package.cmake: `cpack -G DEB` in a build configured with
# -DCMAKE_INSTALL_PREFIX=/usr (scripts/package does both) makes
# llama-verdict_VERSION_ARCH.deb from the install rules: the tools in
# /usr/bin, their data in /usr/share/llama-verdict, the man pages and the bash
# completion. Its Depends come from dpkg-shlibdeps (package dpkg-dev).
set(LVD_DEB_MAINTAINER "llama-verdict maintainers <maintainers@llama-verdict.invalid>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_PACKAGE_NAME llama-verdict)
set(CPACK_PACKAGE_VENDOR llama-verdict)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${LVD_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "measure llama.cpp engines, record verdicts, emit the launch line")
# The first line of Description is the summary; this is the body.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
"llama-verdict fetches and verifies llama.cpp builds, asks each engine which
devices it really sees, checks every device's results against the CPU, runs
llama-bench until the statistics decide, and records the verdicts in a
SQLite store. `lvd select` prints the winning llama-server launch line for a
model; `lvd nightly` runs the whole loop.")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${LVD_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libpq is loaded at run time for a PostgreSQL store (store/store_pg_lib.c), so
# dpkg-shlibdeps cannot see it: named here.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libpq5")
# libcrypto is loaded at the first hash (common/sha256.c), so no binary names
# it either: a dependency named here, added to what dpkg-shlibdeps finds.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libssl3 | libssl3t64")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
include(CPack)

# What the package holds, to build without the tests: the tools and the pages.
add_custom_target(installables)
add_dependencies(installables ${LVD_TOOLS})
if(TARGET man)
  add_dependencies(installables man)
endif()
