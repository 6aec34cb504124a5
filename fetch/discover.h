/* discover.h: finding the llama.cpp engines already on a machine and
 * registering each once (`lvd probe --discover`): llama-server / llama-bench
 * on PATH, directories named by LVD_ENGINE_<NAME> and AIDE_LLAMA_SERVER*,
 * the usual build and install places, lvd fetch's bench dirs, and explicit
 * directories. Each is identified by its own `--version` (engine_ask_version,
 * any era's version line), probed, and named
 * after its build and backend ("b9749-vulkan"). Not for registering a known
 * directory by hand (engine/register.h) nor for probing registered engines
 * (engine/probe.h). */
#ifndef LVD_FETCH_DISCOVER_H
#define LVD_FETCH_DISCOVER_H

#include "common/types.h"
#include "common/util.h"
#include "store/store.h"

#include <stdio.h>

struct cJSON;

/* The fixed places, searched in this order after PATH and the environment
 * when $LVD_DISCOVER_PLACES is unset ('~' is $HOME; shell patterns). */
#define FETCH_DISCOVER_DEFAULT_PLACES "~/llama.cpp/build*/bin:/opt/llama.cpp/*:/opt/llama.cpp/*/bin:/usr/local/bin:/usr/bin"

/* One directory to look at, and where it was found. */
typedef struct fetch_discover_cand {
    char *dir;      /* canonical absolute path (realpath) */
    char *source;   /* "operand", "env:NAME", "path", "place", "benchdir" */
    char *reason;   /* non-NULL: named (operand, env) but holds no engine: why */
} fetch_discover_cand;

/* One engine found, and what became of it. */
typedef struct fetch_discover_found {
    char *dir;
    char *source;
    char *build;    /* "b9749"; NULL when its version could not be told */
    char *commit;   /* NULL when unknown */
    char *semver;   /* the SemVer version its --version says ("0.4.1-dev"); NULL before them */
    char *family;   /* LVD_FAMILY_* its words say; NULL when not told */
    char *name;     /* the engine's name (new: the one given; known: the store's) */
    const char *status; /* "new", "known", "unidentified" (no version: not registered),
                           "missing" (an environment variable names no engine) */
    char *reason;   /* why unidentified / missing; NULL otherwise */
    int64_t engine_id; /* 0 when not registered (dry run, unidentified) */
    lvd_probe probe;
    int probed;
} fetch_discover_found;

typedef struct fetch_discover_result {
    fetch_discover_found *v;
    size_t n;
    size_t n_new, n_known, n_unidentified, n_missing;
    int dry_run;
} fetch_discover_result;

typedef struct fetch_discover_opts {
    const char *const *dirs; /* explicit directories (operands), searched first */
    size_t n_dirs;
    int dry_run;             /* find, identify and probe; write nothing */
    int timeout_ms;          /* for `--version` and the probe; <= 0: ENGINE_PROBE_TIMEOUT_MS */
} fetch_discover_opts;

/* 1 when dir holds an executable llama-bench or llama-server. */
int fetch_discover_is_engine_dir(const char *dir);

/* dir as an engine directory: itself, or the first one a few levels below it
 * (a build tree's build/bin); canonical, malloc'd. NULL with *why (malloc'd)
 * when there is none. */
char *fetch_discover_engine_dir(const char *dir, char **why);

/* The place patterns: $LVD_DISCOVER_PLACES (':'-separated; set but empty:
 * none) else FETCH_DISCOVER_DEFAULT_PLACES, split. Free with lvd_strv_free. */
char **fetch_discover_places(size_t *n);

/* Every candidate directory, in search order (operands, LVD_ENGINE_* then
 * AIDE_LLAMA_SERVER* sorted by variable name, PATH, the places, the bench
 * dirs under fetch_builds_dir_default()), each canonical directory once (the
 * first source wins). A directory named by an operand or a variable that is
 * not an engine directory is searched a few levels down (DIR/build/bin);
 * without one there it is kept with a reason. Runs no process. Returns 0, or
 * -1 (err) when an operand is not a directory holding an engine. */
int fetch_discover_candidates(const fetch_discover_opts *o, fetch_discover_cand **out, size_t *n, lvd_err *err);
void fetch_discover_cands_free(fetch_discover_cand *v, size_t n);

/* The name for a new engine: "<build>-<backend>" ("b9749-cuda"), backend the
 * probe's label; a probe that listed no device ("cpu") of a build whose
 * backends (the probe's backends, "cpu,vulkan") carry an accelerator is named
 * by the accelerators instead ("b9749-vulkan", "b9749-cuda+vulkan"); for an
 * unknown backend lvd fetch --register's default ("<build>-<dir name>"); when
 * taken[0..n) holds it, "-2", "-3", ... is appended. malloc'd. */
char *fetch_discover_name(const char *build, const char *backend, const char *backends, const char *dir,
                          char *const *taken, size_t n);

/* Discovers: finds the candidates, then for each one: known (the store has an
 * engine with that directory) or identified by its version, probed, named and,
 * unless o->dry_run, registered (engine_register) with its probe recorded. s
 * may be NULL in a dry run (no store: nothing is known). Fills r. Returns 0,
 * or -1 with *exit_code (USAGE/INPUT for a bad operand, STORE) and err. */
int fetch_discover_run(store *s, const fetch_discover_opts *o, fetch_discover_result *r, int *exit_code, lvd_err *err);
void fetch_discover_result_free(fetch_discover_result *r);

/* The exit code of a discovery: FAIL when no engine was found, PARTIAL when
 * one could not be identified or its probe is unknown, else OK. */
int fetch_discover_exit_code(const fetch_discover_result *r);

/* {"dry_run", "new", "known", "found": [{path, source, build, commit,
 * family, semver, backend, name, status, reason, engine_id, devices: [selector]}]}. Caller owns it. */
struct cJSON *fetch_discover_json(const fetch_discover_result *r);

/* The found list as a table, then one summary line (fetch_discover_summary). */
void fetch_discover_table(FILE *f, const fetch_discover_result *r);
/* "registered 2 new engines (3 found, 1 already registered)", "nothing new:
 * ...", "dry run: would register ...", "no llama.cpp engine found". malloc'd. */
char *fetch_discover_summary(const fetch_discover_result *r);

#endif
