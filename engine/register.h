/* register.h: registering a local llama.cpp build directory (one built by
 * hand, e.g. CUDA on Linux, which has no release archive) as an engine:
 * checked, digested, identified by its `--version` and recorded (then probed:
 * engine/registration.h).
 * Not for downloading builds (fetch/fetch.h). */
#ifndef LVD_ENGINE_REGISTER_H
#define LVD_ENGINE_REGISTER_H

#include "common/types.h"
#include "common/util.h"
#include "engine/version.h"
#include "store/store.h"

struct cJSON;

typedef struct engine_register_opts {
    const char *dir;     /* the directory holding llama-server and/or llama-bench */
    const char *build;   /* the build id users know it by ("b9749"); NULL: "b<N>" of what its
                            `--version` says (refused when that is build 0: no git history) */
    const char *name;    /* NULL: the name it already has, else engine_register_default_name */
    int timeout_ms;      /* for `--version` and the probe; <= 0: ENGINE_PROBE_TIMEOUT_MS */
    const char *commit;  /* NULL: what `--version` says (engine_ask_version); given (already
                            asked, e.g. by discovery): no --version is asked */
    const char *semver;  /* with commit: the SemVer version that answer gave; NULL: none */
    const char *family;  /* with commit: the family that answer told (LVD_FAMILY_*); NULL: asked */
} engine_register_opts;

/* Registers o->dir: it must be a directory holding an executable
 * llama-server and/or llama-bench; it is recorded by its canonical absolute
 * path, with digest = engine_digest (the SHA-256 over its whole file set,
 * engine/digest.h; unchanged files are not re-read), commit and semver =
 * what its `--version` says (engine_ask_version: "version: 9749
 * (d32676d77)", "version: 0.4.1-dev (build 10991, commit 930e2fa59)"; NULL
 * when it does not answer or says "unknown"), origin "registered", flavour
 * "local", family = what its words say (engine_ask_family; where they say
 * nothing, a build given as mainline's tag, "b9749", makes it mainline's). Without
 * o->build, the build is the one --version names, tagged in its family
 * ("b9749"; "ik4840" for ik_llama.cpp's build 4840): an engine that cannot
 * tell, or of an unknown family, is refused (INPUT, naming the line it
 * printed). Registering a directory again updates its engine under the name
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

/* Asks the engine in dir what it is: `--version` of llama-server, else of
 * llama-perplexity, else of llama-cli (llama-bench has none in the builds
 * this reads), the first whose answer holds a version line (either stream:
 * engine/version.h). 0 with *v, or -1 with err one line: "cannot tell its
 * build: llama-server --version: unrecognised version line 'version: ...'"
 * (each tool asked, joined by "; "), or "... no llama-server,
 * llama-perplexity or llama-cli to ask --version". On success v->family is
 * engine_ask_family's. */
int engine_ask_version(const char *dir, int timeout_ms, engine_version *v, lvd_err *err);

/* The family of the engine in dir (LVD_FAMILY_*, static): its tools' --help
 * (engine_help_read) and v, the version line it printed (NULL: none),
 * through engine_family_detect. */
const char *engine_ask_family(const char *dir, const engine_version *v);

/* The engine as JSON: id, name, dir, build, family, commit, semver, release,
 * flavour, digest, origin, created_at. Caller owns it. */
struct cJSON *engine_json(const lvd_engine *e);

#endif
