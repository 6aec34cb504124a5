/* fetch.h: fetching one llama.cpp build into a bench dir, verified as the
 * trust rules say, and registering it as an engine. The rules, as a pure
 * function (fetch_decide) so they are tested as a table:
 *
 *   recorded digest (pin file / --expect) and the release API's digest are
 *   both checked where both exist; if they disagree the fetch stops (the asset
 *   behind the tag was replaced). API unreachable or rate-limited, or an asset
 *   it publishes no digest for: a recorded digest stands alone (and we say so);
 *   without one the fetch is refused: an unverified build is not worth
 *   measuring. A candidate nobody pinned is verified against the API digest,
 *   which is printed so that promoting it is committing that line.
 *
 * Not for parsing options (lvd-fetch.c) or for the pieces themselves
 * (asset.h, release.h, download.h, unpack.h, pinfile.h). */
#ifndef LVD_FETCH_FETCH_H
#define LVD_FETCH_FETCH_H

#include "common/util.h"
#include "builds/pinfile.h"
#include "fetch/release.h"
#include "fetch/unpack.h"

#include <stdint.h>
#include <stdio.h>

/* The flavour fetched when neither --flavour nor a pin names one: upstream
 * publishes no CUDA archive for Linux, and Vulkan is what a GPU box can run. */
#define FETCH_DEFAULT_FLAVOUR "bin-ubuntu-vulkan-x64"

/* The file written at the root of every bench dir, describing what landed. */
#define FETCH_MANIFEST ".lvd-fetch.json"

typedef enum fetch_verdict {
    FETCH_TRUST_BOTH,        /* recorded == API digest: both checked */
    FETCH_TRUST_RECORDED,    /* the recorded digest stands alone */
    FETCH_TRUST_API,         /* unpinned candidate: the API digest, printed for promotion */
    FETCH_STOP_DISAGREE,     /* recorded != API digest */
    FETCH_STOP_UNVERIFIABLE, /* nothing to verify against */
    FETCH_STOP_NOT_FOUND,    /* the API answered: no such release or asset */
} fetch_verdict;

typedef struct fetch_decision {
    fetch_verdict verdict;
    const char *expect; /* the digest the bytes must have (one of the inputs); NULL when stopping */
    const char *note;   /* one sentence for the user (static) */
} fetch_decision;

/* The verification rules. recorded and api_digest are 64-hex digests or NULL;
 * st is how the API answered the asset lookup (OK with api_digest NULL means
 * the API publishes no digest for the asset). */
fetch_decision fetch_decide(const char *recorded, const char *api_digest, fetch_api_status st);

/* "both", "recorded", "api", "disagree", "unverifiable", "not-found". */
const char *fetch_verdict_name(fetch_verdict v);

typedef struct fetch_opts {
    const char *build;         /* required: b<number> */
    const char *release;       /* the SemVer release build was asked as ("v0.4.1": resolve.h); NULL */
    const char *flavour;       /* NULL: the pin's first flavour, else FETCH_DEFAULT_FLAVOUR */
    const char *expect;        /* --expect: a recorded digest ("sha256:" prefix allowed) */
    const builds_pin *pin;      /* may be NULL; consulted only when its build is build or release */
    const char *builds_dir;    /* NULL: fetch_builds_dir_default() */
    const char *api_base;      /* NULL: fetch_api_base() */
    const char *download_base; /* NULL: fetch_download_base() */
    const char *store_path;    /* store to register the engine in; NULL: store_default_path */
    int no_store;              /* do not register (tests of the fetch alone) */
    int no_probe;              /* register, but do not run `--list-devices` */
    int probe_timeout_ms;      /* <= 0: ENGINE_PROBE_TIMEOUT_MS */
    const fetch_limits *limits;/* NULL: fetch_limits_default */
    FILE *notes;               /* where notes and warnings go (stderr); NULL: nowhere */
} fetch_opts;

typedef struct fetch_result {
    char *build, *flavour, *asset, *url;
    char *release;             /* the SemVer release asked for ("v0.4.1"), NULL */
    char *commit, *semver;     /* what the engine's --version says (engine_ask_version); NULL when
                                  it could not tell */
    char *recorded;            /* recorded digest, NULL when none */
    char *api_digest;          /* API digest, NULL when none */
    fetch_api_status api_status;
    fetch_verdict verdict;
    const char *note;
    char *sha256;              /* digest of what landed */
    uint64_t bytes;            /* bytes downloaded (0 when reused) */
    int reused;                /* the bench dir was already there with these bytes */
    char *bench_dir;           /* absolute */
    char *engine_dir;          /* absolute: the directory holding llama-server/llama-bench */
    char *engine_name;         /* "<build>-<flavour without bin->" */
    int64_t engine_id;         /* 0 when not registered */
    int probed;                /* the probe ran (or the store's cached answer was served) */
    char backend[16];          /* what the probe said: "cpu", "vulkan", ... or "unknown" */
    char *probe_reason;        /* why "unknown", else NULL */
    size_t n_devices;
} fetch_result;

/* $LVD_BUILDS_DIR, else $XDG_DATA_HOME/llama-verdict/builds, else
 * ~/.local/share/llama-verdict/builds; malloc'd. */
char *fetch_builds_dir_default(void);

/* Downloads, verifies, unpacks, registers and probes one build as the rules
 * say. Returns 0 or -1; *exit_code receives the tool's exit status either way
 * (enum lvd_exit: OK; PARTIAL when the build landed and was registered but
 * its probe could not ask it (backend "unknown"); VERIFY for digest trouble;
 * NETWORK for HTTP and transfer failures; USAGE for a bad build or flavour;
 * STORE; FAIL for local I/O and refused archives). On failure no bench dir,
 * temporary file or directory remains. */
int fetch_build(const fetch_opts *o, fetch_result *res, int *exit_code, lvd_err *err);
void fetch_result_free(fetch_result *r);

/* The verified build as JSON (for --json); caller owns it. */
struct cJSON *fetch_result_json(const fetch_result *r);

/* What lvd fetch prints (report.c): the build, its digest, asset, directory,
 * engine and backend ("--latest resolved to B" first when it was), and the
 * pin lines that would record a build verified by the API alone; a
 * registered directory: the engine, its identity and its probe's table. */
struct engine_registration;
void fetch_result_print(FILE *f, const fetch_result *r, int resolved_latest);
void fetch_registered_print(FILE *f, const struct engine_registration *r);

#endif
