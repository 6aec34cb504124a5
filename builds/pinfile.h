/* pinfile.h: the pin file: the llama.cpp build a repository runs and the
 * digests recorded for it, small enough to review in a diff. Format: the
 * `key = value` lines of common/kv.h (comments and blank lines are kept; no
 * sections, no empty values, no setting twice except flavour):
 *
 *   # the build every figure in the catalogue was measured on
 *   build = b10715                             (or a SemVer release: build = v0.4.1, which
 *                                               stands for the build its nightly-tag.txt
 *                                               names: builds/names.h)
 *   flavour = bin-ubuntu-vulkan-x64            (repeatable; the first is the default)
 *   sha256.bin-ubuntu-vulkan-x64 = 1246c7...   (at most one per listed flavour: the digest of
 *                                               that build's archive)
 *
 * Parse errors name the file and line. Rewrites (promotion) keep comments and
 * order and replace the file atomically. Not for deciding whether to promote
 * (select/) or for verifying anything (fetch.h). */
#ifndef LVD_BUILDS_PINFILE_H
#define LVD_BUILDS_PINFILE_H

#include "common/util.h"

#include <stddef.h>

typedef struct builds_pin_line {
    char *text;   /* the line as read (comments, blanks); NULL for a setting written anew */
    char *key;    /* NULL for comments and blank lines */
    char *value;
} builds_pin_line;

typedef struct builds_pin {
    char *path;
    builds_pin_line *lines;
    size_t n_lines;
} builds_pin;

/* Parses text as the pin file path (used in messages only). Errors read
 * "PATH:LINE: what is wrong". Flavours are stored canonically ("bin-" prefix). */
int builds_pin_parse(const char *path, const char *text, size_t len, builds_pin *out, lvd_err *err);
/* Reads and parses path (at most 64 KiB). */
int builds_pin_load(const char *path, builds_pin *out, lvd_err *err);
void builds_pin_free(builds_pin *p);

/* The pinned build, as the file names it (b10715 or v0.4.1). */
const char *builds_pin_build(const builds_pin *p);
/* The i-th listed flavour (0 = the default), NULL past the end. */
const char *builds_pin_flavour(const builds_pin *p, size_t i);
/* The recorded digest of flavour (any spelling), NULL when none is recorded. */
const char *builds_pin_sha256(const builds_pin *p, const char *flavour);

/* Records (build, flavour, sha256) as the pin: a new build drops every digest
 * recorded for the old one; flavour is listed if it was not. Validates its
 * arguments (build tag, known flavour, 64 lowercase hex). */
int builds_pin_promote(builds_pin *p, const char *build, const char *flavour, const char *sha256,
                      lvd_err *err);
/* The file's text as it would be written; malloc'd. */
char *builds_pin_format(const builds_pin *p);
/* Writes the pin to path atomically (temp file, fsync, rename). */
int builds_pin_save(const builds_pin *p, const char *path, lvd_err *err);

/* The pin file shipped with llama-verdict: $LVD_PIN_FILE when set, else
 * LVD_DATADIR/pin.default when it exists, else NULL. malloc'd. */
char *builds_pin_default_path(void);

#endif
