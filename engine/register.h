/* register.h: registering a local llama.cpp build directory (one built by
 * hand, e.g. CUDA on Linux, which has no release archive) as an engine:
 * checked, digested, identified by its `--version` and recorded (then probed:
 * engine/registration.h).
 * Not for downloading builds (fetch/fetch.h). */
#ifndef LVD_ENGINE_REGISTER_H
#define LVD_ENGINE_REGISTER_H

#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

struct cJSON;

typedef struct engine_register_opts {
    const char *dir;     /* the directory holding llama-server and/or llama-bench */
    const char *build;   /* the build id users know it by ("b9749"); required */
    const char *name;    /* NULL: the name it already has, else engine_register_default_name */
    int timeout_ms;      /* for `--version` and the probe; <= 0: ENGINE_PROBE_TIMEOUT_MS */
    const char *commit;  /* NULL: what `llama-server --version` says (already asked, e.g. by discovery) */
} engine_register_opts;

/* Registers o->dir: it must be a directory holding an executable
 * llama-server and/or llama-bench; it is recorded by its canonical absolute
 * path, with digest = engine_digest (the SHA-256 over its whole file set,
 * engine/digest.h; unchanged files are not re-read), commit =
 * what `llama-server --version` says ("version: 9749 (d32676d77)"; NULL when
 * it does not answer or says "unknown"), origin "registered", flavour
 * "local". Registering a directory again updates its engine under the name
 * it has; a different o->name for an already registered directory is
 * refused, as is a name another directory already holds.
 * Fills out (caller frees with lvd_engine_free). Returns 0, or -1 with err
 * naming the directory or engine and *exit_code set (enum lvd_exit: INPUT for
 * a bad directory, USAGE for a bad name or build, FAIL for a name clash,
 * STORE for the store). */
int engine_register(store *s, const engine_register_opts *o, lvd_engine *out, int *exit_code,
                   lvd_err *err);

/* "<build>-<last meaningful component of dir>" with every character outside
 * [A-Za-z0-9._+-] replaced by '-'; "bin" and "build" components are skipped
 * (/opt/llama-cuda/build/bin, b9749 -> "b9749-llama-cuda"). malloc'd. */
char *engine_register_default_name(const char *build, const char *dir);

/* 1 when s is usable as an engine name or build id: 1-64 characters of
 * [A-Za-z0-9._+-], starting with a letter or digit, not all digits (ids are
 * numbers). */
int engine_register_name_valid(const char *s);

/* Reads "version: 9749 (d32676d77)" from `llama-server --version` output.
 * Copies the commit into commit (len bytes; "" when it says "unknown") and
 * the number into *number (may be NULL). 0, or -1 when no version line. */
int engine_parse_version(const char *text, char *commit, size_t len, int64_t *number);

/* The engine as JSON: id, name, dir, build, commit, flavour, digest, origin,
 * created_at. Caller owns it. */
struct cJSON *engine_json(const lvd_engine *e);

#endif
