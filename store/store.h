/* store.h: the typed API of the llama-verdict store, the one SQLite file (or
 * PostgreSQL database) every tool shares. Only store/ speaks SQL; everything
 * else calls these functions.
 *
 * Conventions: functions return 0 on success and -1 on error with a one-line
 * message in err (naming the store file). Lookups that may find nothing return
 * 1 for "not found". Records returned through out-parameters are owned by the
 * caller and released with the matching lvd_*_free (common/types.h); lists are
 * released with the store_*_list_free helpers. Every write is one transaction:
 * a run and its results and samples land together or not at all. */
#ifndef LVD_STORE_H
#define LVD_STORE_H

#include "common/gguf.h"
#include "common/types.h"
#include "common/util.h"

#include <stdint.h>

typedef struct store store;

/* --- opening ------------------------------------------------------------ */

enum {
    STORE_OPEN_CREATE = 1,    /* create the file (and its directory) if missing */
    STORE_OPEN_READONLY = 2,  /* never write, never migrate */
};

/* Resolves the store path: explicit (--store) > $LVD_STORE >
 * $XDG_DATA_HOME/llama-verdict/store.db > ~/.local/share/llama-verdict/store.db.
 * Returns a malloc'd string. */
char *store_default_path(const char *explicit_path);

/* Opens (and with CREATE creates) the store: a PostgreSQL database when path
 * is a URI or service (store_is_remote; the database must exist), else the
 * SQLite file (WAL, busy timeout, foreign keys); forward migrations to
 * store_schema_version(). A store whose schema version is newer than this
 * binary knows is refused and left untouched. */
int store_open(const char *path, int flags, store **out, lvd_err *err);
/* Whether spec (a --store value) names a PostgreSQL database: a URI
 * postgresql://... or postgres://..., or libpq's service=NAME; anything else
 * is an SQLite file. */
int store_is_remote(const char *spec);
/* spec as it may be shown or logged: a password in it scrubbed. Malloc'd. */
char *store_display(const char *spec);
/* The local file path that a store's lock and state files are named after
 * (SPEC.nightly.lock ...): the SQLite file itself, or for a PostgreSQL store
 * a name in the local state directory made from its URI. Malloc'd. */
char *store_local_anchor(const char *spec);
void store_close(store *s);
const char *store_path(const store *s);
int store_user_version(store *s, int64_t *version, lvd_err *err);

/* Explicit transactions for callers that group several writes. Nested calls
 * are counted; only the outermost commits. */
int store_begin(store *s, lvd_err *err);
int store_commit(store *s, lvd_err *err);
void store_rollback(store *s);

/* --- artifacts ---------------------------------------------------------- */

typedef struct store_artifact {
    char sha256[LVD_SHA256_HEX_LEN + 1];
    int64_t size;
    gguf_shape shape;     /* shape.known == 0 when not a readable GGUF */
    int64_t created_at;
    char *last_path;      /* most recently seen path (informative), may be NULL */
} store_artifact;

/* Inserts or updates by sha256. size -1 means unknown (an imported stub) and a
 * stub (shape.known 0) or a NULL last_path never erases what is recorded. */
int store_artifact_put(store *s, const store_artifact *a, lvd_err *err);
int store_artifact_get(store *s, const char *sha256, store_artifact *out, lvd_err *err); /* 1 = none */
int store_artifact_list(store *s, store_artifact **out, size_t *n, lvd_err *err);
void store_artifact_free(store_artifact *a);
void store_artifact_list_free(store_artifact *v, size_t n);

/* The hash cache: (path, size, mtime_ns, inode) -> sha256. 1 = miss (or stale). */
int store_path_lookup(store *s, const char *path, int64_t size, int64_t mtime_ns,
                      int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err);
/* Records (replaces) path's entry; the artifact must be recorded first. Also
 * makes path the artifact's last_path. */
int store_path_put(store *s, const char *path, int64_t size, int64_t mtime_ns,
                   int64_t inode, const char *sha256, lvd_err *err);

/* The shard cache of split models: (path, size, mtime_ns, inode) -> that
 * shard file's own sha256. 1 = miss (or stale). */
int store_shard_lookup(store *s, const char *path, int64_t size, int64_t mtime_ns,
                       int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err);
/* Records (replaces) path's entry as shard shard_no (from 1) of artifact,
 * which must be recorded first. */
int store_shard_put(store *s, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                    const char *sha256, const char *artifact, unsigned shard_no, lvd_err *err);

/* --- engines and probes ------------------------------------------------- */

/* Inserts or updates (by name) an engine; sets e->id. */
int store_engine_put(store *s, lvd_engine *e, lvd_err *err);
int store_engine_get(store *s, int64_t id, lvd_engine *out, lvd_err *err);          /* 1 = none */
int store_engine_by_name(store *s, const char *name, lvd_engine *out, lvd_err *err); /* 1 = none */
/* This host's engines but the retired ones (store/bisectdb.h store_engine_retire), by id. */
int store_engine_list(store *s, lvd_engine **out, size_t *n, lvd_err *err);
/* The same for host (NULL: this host's; "*": every host's), as lvd pin --fleet reads them. */
int store_engine_list_host(store *s, const char *host, lvd_engine **out, size_t *n, lvd_err *err);
void store_engine_list_free(lvd_engine *v, size_t n);

/* Records a probe and its devices; sets p->id. Probes whose backend is
 * "unknown" are recorded for display but never served as a cache hit.
 * p->env is the device-visibility environment it was made under
 * (engine/visibility.h); NULL is recorded as "" (none set). */
int store_probe_put(store *s, lvd_probe *p, lvd_err *err);
/* The newest cached probe of binary made under environment env (NULL = "")
 * that is still valid: same mtime and size, backend not unknown, probed_at
 * >= now - ttl. A probe whose environment was not recorded never matches.
 * 1 = none valid. */
int store_probe_fresh(store *s, const char *binary, const char *env, int64_t mtime_ns, int64_t size,
                      int64_t now, int64_t ttl, lvd_probe *out, lvd_err *err);
/* The newest probe of an engine regardless of validity or environment. 1 = none. */
int store_probe_latest(store *s, int64_t engine_id, lvd_probe *out, lvd_err *err);
/* The same among its probes made under environment env (NULL = ""). 1 = none. */
int store_probe_latest_env(store *s, int64_t engine_id, const char *env, lvd_probe *out, lvd_err *err);
/* Each engine of host (NULL: this machine) not retired, by id, with its
 * newest probe made under env (NULL = "") and that probe's devices, in one
 * query (lvd select reads them all at once): (*engines)[i] and
 * (*probes)[i], *n of each (NULL when none); the probe of an engine never
 * probed under env is zeroed (id 0). 0, or -1 with err. */
int store_engines_probed(store *s, const char *host, const char *env, lvd_engine **engines, lvd_probe **probes,
                         size_t *n, lvd_err *err);
void store_probe_list_free(lvd_probe *v, size_t n);
/* Records the CUDA archs a log of the probed files printed (engine/cudaarch.h). */
int store_probe_set_cuda_archs(store *s, int64_t probe_id, const char *archs, lvd_err *err);

/* --- runs, results, samples --------------------------------------------- */

/* Records a run with its results and samples in one transaction; sets ids. */
int store_run_put(store *s, lvd_run *r, lvd_err *err);

typedef struct store_run_filter {
    const char *artifact;  /* NULL = any */
    const char *host;      /* NULL = any */
    int64_t engine_id;     /* 0 = any */
    const char *arm_key;   /* NULL = any */
    const char *session;   /* NULL = any but a hunt's (STORE_HUNT_SESSION_PREFIX, store/bisectdb.h) */
    const char *status;    /* NULL = any */
    int serving;           /* 0 = any; 1 = serving runs only (lvd serve: params.parallel > 0);
                              -1 = llama-bench runs only */
    int64_t since;         /* started_at >= since; 0 = any */
    int with_samples;      /* load results and samples too */
    int limit;             /* 0 = no limit; newest first when set */
} store_run_filter;

int store_run_list(store *s, const store_run_filter *f, lvd_run **out, size_t *n, lvd_err *err);
void store_run_list_free(lvd_run *v, size_t n);
/* The start (UTC midnight, epoch seconds) of the newest `nights` nights
 * (UTC dates) that have runs of artifact (NULL: any) on host; *since 0 when
 * nights is 0 or there is no run (read everything). 0 or -1 with err. */
int store_run_nights_since(store *s, const char *artifact, const char *host, size_t nights, int64_t *since,
                           lvd_err *err);
/* Loads the results and samples of runs[0..n) listed without them (a
 * caller that keeps a few of many runs lists them bare first). 0 or -1. */
int store_run_load_results(store *s, lvd_run *runs, size_t n, lvd_err *err);
/* 1 when the store already holds imported run r: same start, artifact,
 * engine, arm and tests in order (*session: its session, malloc'd); 0 when
 * not; -1 with err. One indexed query (started_at), nothing loaded. */
int store_run_imported(store *s, const lvd_run *r, char **session, lvd_err *err);

/* The device rows of run_alloc (host rows "CPU" left out) of runs that
 * finished (status ok) with both the actual model bytes and the predicted
 * ones, each with its run's build, the newest per_device runs' rows of each
 * device (newest first), into *out (malloc'd, free with free()): the margin
 * correction's input (its window: PLACEMENT_CORRECTION_WINDOW). 0, or -1. */
int store_alloc_rows(store *s, size_t per_device, lvd_alloc **out, size_t *n, lvd_err *err);

/* --- llama.cpp's own memory figures (llama-fit-params --fit-print) --- */

/* One dry run's figures for a model on an engine at one setting, in MiB as
 * llama.cpp printed them (engine/fitprint.h). */
typedef struct store_fitprint {
    int64_t engine_id;
    char artifact[LVD_SHA256_HEX_LEN + 1];
    char host[128];        /* "" when writing: this machine */
    int64_t ctx;
    int ubatch, fa;        /* the run's -ub (and -b), -fa 0|1 */
    char type_k[16], type_v[16]; /* "" = f16 */
    char device[64];       /* the device row's name ("CUDA0"); "" when it printed the host alone */
    int64_t dev_model, dev_context, dev_compute; /* -1 without a device row */
    int64_t host_model, host_context, host_compute;
    char *files;           /* the engine's files when it ran (engine_files_key); NULL unknown
                              (borrowed when writing; malloc'd by store_fitprint_list) */
    int64_t created_at;
} store_fitprint;

/* Records f (created_at now when 0), replacing the row of the same engine,
 * artifact, host, setting and device. 0, or -1 with err. */
int store_fitprint_put(store *s, store_fitprint *f, lvd_err *err);
/* The rows of artifact on host (NULL: this machine), newest first, into *out
 * (malloc'd, free with free()). 0, or -1 with err. */
int store_fitprint_list(store *s, const char *artifact, const char *host, store_fitprint **out, size_t *n,
                        lvd_err *err);
void store_fitprint_list_free(store_fitprint *v, size_t n);

/* --- llama.cpp's own fit plans ------------------------------ */

/* What llama.cpp's fit chose for one device (llama-fit-params), beside our
 * placement for the same free memory. */
typedef struct store_fit_plan {
    int64_t id;
    char artifact[LVD_SHA256_HEX_LEN + 1];
    int64_t engine_id;
    char *host, *session;
    char device[64];
    int64_t free_mib;      /* -1 unknown */
    int fit_target, fit_ctx;
    int64_t ctx;           /* -c it chose */
    int ngl;               /* -ngl it chose */
    char *overrides;       /* its -ot list ("" none) */
    int host_blocks;       /* blocks whose experts the overrides put on the host */
    char *ours;            /* our placement's flags ("-ngl 5 -ncmoe 2 -ub 256") */
    int64_t created_at;
} store_fit_plan;

/* Records p (created_at now when 0); sets p->id. 0, or -1 with err. */
int store_fit_plan_put(store *s, store_fit_plan *p, lvd_err *err);
/* Every plan of artifact (NULL: all), oldest first. 0, or -1 with err. */
int store_fit_plan_list(store *s, const char *artifact, store_fit_plan **out, size_t *n, lvd_err *err);
void store_fit_plan_free(store_fit_plan *p);
void store_fit_plan_list_free(store_fit_plan *v, size_t n);

/* --- checks ------------------------------------------------------------- */

int store_check_put(store *s, lvd_check *c, lvd_err *err);
/* Newest check for (artifact, host, engine, device). 1 = none. A split over
 * several devices ("CUDA0/CUDA1", bench/plan.h) is checked device by device:
 * the first that has none (1) or did not pass gives its check, else the last
 * device's passed check is returned. */
int store_check_latest(store *s, const char *artifact, const char *host, int64_t engine_id,
                       const char *device, lvd_check *out, lvd_err *err);
int store_check_list(store *s, const char *artifact, lvd_check **out, size_t *n, lvd_err *err);
void store_check_list_free(lvd_check *v, size_t n);

/* --- verdicts ----------------------------------------------------------- */

int store_verdict_put(store *s, lvd_verdict *v, lvd_err *err);
/* Newest verdict for (artifact, host, objective), without its statistics
 * (stats_json NULL: what lvd select reads at service start; the history,
 * store_verdict_list, has them). 1 = none. */
int store_verdict_latest(store *s, const char *artifact, const char *host,
                         const char *objective, lvd_verdict *out, lvd_err *err);
/* Verdict history, newest first (limit 0 = all). */
int store_verdict_list(store *s, const char *artifact, const char *host, int limit,
                       lvd_verdict **out, size_t *n, lvd_err *err);
void store_verdict_list_free(lvd_verdict *v, size_t n);

/* --- pins --------------------------------------------------------------- */

int store_pin_decision_put(store *s, lvd_pin_decision *d, lvd_err *err);
/* The decisions of the newest `nights` nights that have one (UTC dates:
 * six decisions on one day are one night), newest first; 0 = all. */
int store_pin_decision_list(store *s, int nights, lvd_pin_decision **out, size_t *n, lvd_err *err);
void store_pin_decision_list_free(lvd_pin_decision *v, size_t n);
/* The newest decision between pinned and candidate into *out (free with
 * lvd_pin_decision_free): 0, 1 when there is none, -1 with err. */
int store_pin_decision_latest(store *s, const char *pinned, const char *candidate, lvd_pin_decision *out,
                              lvd_err *err);
int store_pin_record(store *s, const char *build, const char *flavour, const char *sha256,
                     const char *source, lvd_err *err);

/* --- context ceilings (lvd fit, fit/fit.h) ------------------------------ */

typedef struct store_ceiling {
    int64_t id;
    char artifact[LVD_SHA256_HEX_LEN + 1];
    int64_t engine_id;
    char *engine_key;     /* the engine's identity when measured (fit_engine_key) */
    char device[64];      /* selector; "CPU" for a CPU run */
    char type_k[16], type_v[16];
    char *placement;      /* the placement flags it loaded with ("ngl=99 ncmoe=0 ub=512") */
    int64_t ceiling;      /* the largest context that loaded; 0 = none did */
    int capped;           /* max_ctx itself loaded: the true ceiling is higher */
    int64_t max_ctx;      /* the top of the search */
    int64_t predicted;    /* the placement's predicted maximum context; -1 = unknown */
    int64_t free_mib;     /* the device's free memory at the time; -1 = unknown */
    int probes;           /* loads it took */
    char *host;
    int64_t measured_at;
} store_ceiling;

/* Records one ceiling (measured_at 0: now); sets c->id. */
int store_ceiling_put(store *s, store_ceiling *c, lvd_err *err);
/* The newest ceiling of (artifact, host, engine, device, type_k, type_v). 1 = none. */
int store_ceiling_latest(store *s, const char *artifact, const char *host, int64_t engine_id,
                         const char *device, const char *type_k, const char *type_v,
                         store_ceiling *out, lvd_err *err);
/* The newest ceiling of every (engine, device, type_k, type_v) of artifact on
 * host, by engine id, device, types. */
int store_ceiling_list(store *s, const char *artifact, const char *host, store_ceiling **out, size_t *n,
                       lvd_err *err);
void store_ceiling_free(store_ceiling *c);
void store_ceiling_list_free(store_ceiling *v, size_t n);

/* --- summary ------------------------------------------------------------ */

typedef struct store_counts {
    int64_t artifacts, engines, probes, runs, results, samples, checks, verdicts, pin_decisions;
} store_counts;

int store_counts_get(store *s, store_counts *out, lvd_err *err);

/* --- integrity ---------------------------------------------------------- */

/* Checks the file after a crash or a failed write: SQLite's PRAGMA
 * integrity_check (pages, indexes, constraints) and PRAGMA foreign_key_check
 * (no sample without its result, no result without its run). Read-only opens
 * may check. 0 when both are clean, else -1 with the first problem and how
 * many there are, naming the store file. */
int store_integrity_check(store *s, lvd_err *err);

#endif
