/* version.h: what a llama.cpp build says it is (build number, commit and,
 * since the SemVer releases, its version), read from any of the lines its
 * tools have printed over the years:
 *
 *   version: 0.4.1-dev (build 10991, commit 930e2fa59)  `--version`, SemVer era (build 10400 on,
 *                                                       Aug 2026: llama_print_build_info)
 *   version: 9749 (d32676d77)                           `--version`, late 2023 to Aug 2026
 *   build: 4547 (6171c9d2) with cc (Debian 12.2.0) 12.2.0 for x86_64-linux-gnu
 *                                                       the start-up log (common_init, 2024-2025)
 *   common_params_print_info: build 9749 (d32676d77) with GNU 12.2.0 for Linux x86_64
 *                                                       the start-up log of 2026 (-lv 4)
 *   main: build = 1953 (9b3a3d8)                        print_build_info of the older tools
 *   build: d32676d77 (9749)                             llama-bench's markdown footer
 *
 * each with or without llama.cpp's log prefix ("0.00.025.991 I ", engine/rx.h)
 * and with LF or CRLF line ends. Where several lines say it, a `version:`
 * line wins over a log line, and the first of one form wins. Pure: nothing
 * is run here (register.h asks the engine). */
#ifndef LVD_ENGINE_VERSION_H
#define LVD_ENGINE_VERSION_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

typedef struct engine_version {
    int64_t number;     /* the build number (10991); 0 for a build made without git history */
    char commit[65];    /* "930e2fa59"; "" when the line says "unknown" */
    char semver[40];    /* "0.4.1-dev"; "" before the SemVer era */
    const char *form;   /* which line said it (static): "semver", "version", "build-log",
                           "build-info", "bench-footer" */
    const char *family; /* LVD_FAMILY_* (static) as engine_ask_version tells it from the tools'
                           --help (engine/family.h); NULL from engine_version_parse */
} engine_version;

/* Reads the version from text (a tool's stdout or stderr, or both). 0 with
 * *v filled; ENGINE_VERSION_UNRECOGNISED with err "unrecognised version
 * line 'version: ...'" quoting (at most 120 bytes of) a `version:` line no
 * form matches; else -1 with err one line ("no version line"). */
#define ENGINE_VERSION_UNRECOGNISED (-2)
int engine_version_parse(const char *text, engine_version *v, lvd_err *err);

/* The build tag of v in its family (engine_family_tag; no family told:
 * llama.cpp's): "b10991", "ik4840" into buf. */
void engine_version_build(const engine_version *v, char *buf, size_t len);

#endif
