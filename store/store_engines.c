/* store_engines.c: engines (llama.cpp build directories) and their probes
 * with the devices each probe saw. Not for running probes or parsing
 * --list-devices (bench/), nor for deciding the TTL (the caller passes it).
 * Engines are known per host (schema 13): a name or a directory names one
 * engine of one machine; lookups by name, the list and registration are
 * this machine's (lvd_hostname); an id is the store's own, any host's. */
#include "store/store_cols.h"

#include "common/util.h"

#include <stdlib.h>
#include <string.h>

/* An engine's columns, in the order of the engines table's INSERT and
 * SELECT; the ones written from more than the field (the host, the time, the
 * family) are filled in a copy first (store_engine_put). The host and name
 * name the engine: registering it again replaces the rest but its time. */
#define ENGINE_COL(FIELD, KIND, NAME) STORE_COL(lvd_engine, FIELD, KIND, NAME, STORE_COL_RW)
#define ENGINE_KEPT(FIELD, KIND, NAME, USE) STORE_COL(lvd_engine, FIELD, KIND, NAME, STORE_COL_RW | USE)
static const store_col engine_cols[] = {
    STORE_COL(lvd_engine, id, STORE_COL_I64, "id", STORE_COL_R),
    ENGINE_KEPT(name, STORE_COL_TEXT, "name", STORE_COL_KEY),
    ENGINE_COL(dir, STORE_COL_TEXT, "dir"),
    ENGINE_COL(build, STORE_COL_TEXT, "build"),
    ENGINE_COL(commit, STORE_COL_TEXT, "commit_id"),
    ENGINE_COL(flavour, STORE_COL_TEXT, "flavour"),
    ENGINE_COL(digest, STORE_COL_TEXT, "digest"),
    ENGINE_COL(origin, STORE_COL_TEXT, "origin"),
    ENGINE_KEPT(created_at, STORE_COL_I64, "created_at", STORE_COL_KEEP),
    ENGINE_KEPT(host, STORE_COL_TEXT, "host", STORE_COL_KEY),
    ENGINE_COL(semver, STORE_COL_TEXT, "semver"),
    ENGINE_COL(release, STORE_COL_TEXT, "release_tag"),
    ENGINE_COL(family, STORE_COL_TEXT, "family"),
};
#define N_ENGINE_COLS LVD_ARRAY_LEN(engine_cols)

/* The engine in engine_cols' columns from column first on. */
static void col_engine_at(store_stmt *st, int first, lvd_engine *e)
{
    memset(e, 0, sizeof *e);
    store_cols_read(st, first, engine_cols, N_ENGINE_COLS, e);
}

/* Prepares "SELECT <an engine's columns> FROM engines" then tail. */
static int prepare_engine(store *s, const char *tail, store_stmt **st, lvd_err *err)
{
    return store_cols_select(s, "engines", engine_cols, N_ENGINE_COLS, tail, st, err);
}

static void col_engine(store_stmt *st, void *item)
{
    col_engine_at(st, 0, item);
}

/* The host an engine being written is on: its own, else this machine. */
static const char *engine_host(const lvd_engine *e)
{
    return e->host && *e->host ? e->host : lvd_hostname();
}

/* Explains a UNIQUE(host, dir) clash by naming the engine that holds the directory. */
static int dir_taken(store *s, const lvd_engine *e, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "SELECT name FROM engines WHERE host = ?2 AND dir = ?1", &st, err))
        return -1;
    store_bind_text(st, 1, e->dir);
    store_bind_text(st, 2, engine_host(e));
    char other[256] = "";
    if (store_step(st) == STORE_ROW)
        store_col_copy(st, 0, other, sizeof other);
    store_finalize(st);
    return lvd_errf(err, "%s: engine directory %s is already registered as '%s'; cannot register it as '%s'",
                    s->path, e->dir, other, e->name);
}

int store_engine_put(store *s, lvd_engine *e, lvd_err *err)
{
    if (!e->name || !*e->name || !e->dir || !*e->dir || !e->build || !*e->build || !e->origin)
        return lvd_errf(err, "%s: an engine needs a name, a directory, a build and an origin", s->path);
    lvd_engine row = *e; /* borrowed */
    row.host = (char *)engine_host(e);
    row.created_at = e->created_at ? e->created_at : lvd_now();
    row.family = (char *)lvd_engine_family(e);
    store_stmt *st;
    if (store_cols_upsert(s, "engines", engine_cols, N_ENGINE_COLS, &row, ", retired_at = NULL RETURNING id, created_at",
                          &st, err))
        return -1;
    int rc = store_step(st);
    if (rc != STORE_ROW) {
        int dir_clash = store_unique_violation(s, "engines.dir");
        if (!dir_clash)
            store_fail(s, err, "cannot record engine");
        store_finalize(st);
        return dir_clash ? dir_taken(s, e, err) : -1;
    }
    e->id = store_col_i64(st, 0);
    e->created_at = store_col_i64(st, 1);
    /* RETURNING rows are final only once the statement runs to completion. */
    return store_step_done(s, st, "cannot record engine", err);
}

/* Runs a one-row engine query whose only parameter is already bound. */
static int engine_one(store *s, store_stmt *st, lvd_engine *out, lvd_err *err)
{
    int rc = store_step(st);
    int ret = 1;
    if (rc == STORE_ROW) {
        col_engine(st, out);
        ret = 0;
    } else if (rc != STORE_DONE) {
        ret = store_fail(s, err, "cannot read engine");
    }
    store_finalize(st);
    return ret;
}

int store_engine_get(store *s, int64_t id, lvd_engine *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (prepare_engine(s, " WHERE id = ?", &st, err))
        return -1;
    store_bind_i64(st, 1, id);
    return engine_one(s, st, out, err);
}

int store_engine_by_name(store *s, const char *name, lvd_engine *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (prepare_engine(s, " WHERE host = ? AND name = ?", &st, err))
        return -1;
    store_bind_text(st, 1, lvd_hostname());
    store_bind_text(st, 2, name);
    return engine_one(s, st, out, err);
}

static void free_engine(void *e)
{
    lvd_engine_free(e);
}

int store_engine_list(store *s, lvd_engine **out, size_t *n, lvd_err *err)
{
    return store_engine_list_host(s, NULL, out, n, err);
}

int store_engine_list_host(store *s, const char *host, lvd_engine **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    int every = host && !strcmp(host, "*");
    if (prepare_engine(s, every ? " WHERE retired_at IS NULL ORDER BY id"
                                : " WHERE host = ?1 AND retired_at IS NULL ORDER BY id",
                       &st, err))
        return -1;
    store_bind_text(st, 1, host ? host : lvd_hostname());
    void *v;
    if (store_rows(s, st, sizeof **out, col_engine, free_engine, "cannot list engines", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

void store_engine_list_free(lvd_engine *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvd_engine_free(&v[i]);
    free(v);
}

/* --- probes and devices --------------------------------------------------- */

/* A probe's columns, in the order of the probes table's INSERT and SELECT:
 * its environment "" when not recorded, its backends and CUDA archs SQL NULL
 * when unknown; its devices are the devices table's. */
#define PROBE_COL(FIELD, KIND, NAME) STORE_COL(lvd_probe, FIELD, KIND, NAME, STORE_COL_RW)
static const store_col probe_cols[] = {
    STORE_COL(lvd_probe, id, STORE_COL_I64, "id", STORE_COL_R),
    PROBE_COL(engine_id, STORE_COL_I64, "engine_id"),
    PROBE_COL(binary, STORE_COL_TEXT, "\"binary\""),
    PROBE_COL(bin_mtime_ns, STORE_COL_I64, "bin_mtime_ns"),
    PROBE_COL(bin_size, STORE_COL_I64, "bin_size"),
    PROBE_COL(probed_at, STORE_COL_I64, "probed_at"),
    PROBE_COL(backend, STORE_COL_CHARS, "backend"),
    PROBE_COL(reason, STORE_COL_TEXT, "reason"),
    PROBE_COL(env, STORE_COL_TEXT_EMPTY, "env"),
    PROBE_COL(files, STORE_COL_TEXT, "files"),
    PROBE_COL(backends, STORE_COL_CHARS_NULL, "backends"),
    PROBE_COL(no_device, STORE_COL_TEXT, "no_device"),
    PROBE_COL(cuda_archs, STORE_COL_CHARS_NULL, "cuda_archs"),
    PROBE_COL(flags, STORE_COL_TEXT, "flags"),
};
#define N_PROBE_COLS LVD_ARRAY_LEN(probe_cols)

/* A device's columns, in the order of the devices table's INSERT and
 * SELECT: its probe and index bound by hand; a size not printed (-1) and a
 * compute capability not known ("") are SQL NULL. */
#define DEVICE_COL(FIELD, KIND) STORE_COL(lvd_device, FIELD, KIND, #FIELD, STORE_COL_RW)
#define DEVICE_MIB(FIELD) STORE_COL_OR(lvd_device, FIELD, STORE_COL_I64_NULL, #FIELD, STORE_COL_RW, -1)
static const store_col device_cols[] = {
    {.name = "probe_id", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    {.name = "idx", .kind = STORE_COL_HAND, .use = STORE_COL_W},
    DEVICE_COL(selector, STORE_COL_CHARS),
    DEVICE_COL(name, STORE_COL_CHARS),
    DEVICE_MIB(total_mib),
    DEVICE_MIB(free_mib),
    DEVICE_COL(backend, STORE_COL_CHARS),
    DEVICE_COL(compute_cap, STORE_COL_CHARS_NULL),
};
#define N_DEVICE_COLS LVD_ARRAY_LEN(device_cols)
#define DEVICE_AT(NAME) store_cols_at(device_cols, N_DEVICE_COLS, STORE_COL_W, 1, NAME)

int store_probe_put(store *s, lvd_probe *p, lvd_err *err)
{
    if (!p->binary || !*p->backend)
        return lvd_errf(err, "%s: a probe needs a binary and a backend label", s->path);
    if (p->probed_at == 0)
        p->probed_at = lvd_now();
    if (store_begin(s, err))
        return -1;
    store_stmt *st;
    if (store_cols_insert(s, "probes", probe_cols, N_PROBE_COLS, p, &st, err))
        goto fail;
    if (store_step_done(s, st, "cannot record probe", err))
        goto fail;
    int64_t id = store_last_id(s);
    if (store_cols_insert(s, "devices", device_cols, N_DEVICE_COLS, NULL, &st, err))
        goto fail;
    for (size_t i = 0; i < p->n_devices; i++) {
        store_cols_bind(st, 1, device_cols, N_DEVICE_COLS, &p->devices[i]);
        store_bind_i64(st, DEVICE_AT("probe_id"), id);
        store_bind_i64(st, DEVICE_AT("idx"), (int64_t)i);
        if (store_step(st) != STORE_DONE) {
            store_fail(s, err, "cannot record device");
            store_finalize(st);
            goto fail;
        }
        store_reset(st);
    }
    store_finalize(st);
    if (store_commit(s, err))
        goto fail;
    p->id = id;
    return 0;
fail:
    store_rollback(s);
    return -1;
}

/* Appends the device in st's columns from first on (device_cols') to p. */
static void col_device(store_stmt *st, int first, lvd_probe *p, size_t *cap)
{
    p->devices = store_grow(p->devices, sizeof *p->devices, p->n_devices, cap);
    lvd_device *d = &p->devices[p->n_devices++];
    memset(d, 0, sizeof *d);
    store_cols_read(st, first, device_cols, N_DEVICE_COLS, d);
}

static int load_devices(store *s, lvd_probe *p, lvd_err *err)
{
    store_stmt *st;
    if (store_cols_select(s, "devices", device_cols, N_DEVICE_COLS, " WHERE probe_id = ? ORDER BY idx", &st, err))
        return -1;
    store_bind_i64(st, 1, p->id);
    size_t cap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW)
        col_device(st, 0, p, &cap);
    store_finalize(st);
    if (rc != STORE_DONE)
        return store_fail(s, err, "cannot read devices");
    return 0;
}

/* Reads the probe in st's columns from first on (probe_cols'), no devices. */
static void col_probe_at(store_stmt *st, int first, lvd_probe *out)
{
    memset(out, 0, sizeof *out);
    store_cols_read(st, first, probe_cols, N_PROBE_COLS, out);
}

static void col_probe(store_stmt *st, lvd_probe *out)
{
    col_probe_at(st, 0, out);
}

/* Runs a probe query (parameters bound) and loads the first row with its devices. */
static int probe_one(store *s, store_stmt *st, lvd_probe *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    int rc = store_step(st);
    if (rc != STORE_ROW) {
        store_finalize(st);
        return rc == STORE_DONE ? 1 : store_fail(s, err, "cannot read probe");
    }
    col_probe(st, out);
    store_finalize(st);
    if (load_devices(s, out, err)) {
        lvd_probe_free(out);
        return -1;
    }
    return 0;
}

/* Prepares "SELECT <a probe's columns> FROM probes" then tail. */
static int prepare_probe(store *s, const char *tail, store_stmt **st, lvd_err *err)
{
    return store_cols_select(s, "probes", probe_cols, N_PROBE_COLS, tail, st, err);
}

int store_probe_fresh(store *s, const char *binary, const char *env, int64_t mtime_ns, int64_t size,
                      int64_t now, int64_t ttl, lvd_probe *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (prepare_probe(s,
                      " WHERE \"binary\" = ? AND env = ? AND bin_mtime_ns = ? AND bin_size = ?"
                      " AND backend <> 'unknown' AND probed_at >= ?"
                      " AND engine_id IN (SELECT id FROM engines WHERE host = ?6)"
                      " ORDER BY probed_at DESC, id DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_text(st, 1, binary);
    store_bind_text(st, 2, env ? env : "");
    store_bind_i64(st, 3, mtime_ns);
    store_bind_i64(st, 4, size);
    store_bind_i64(st, 5, now - ttl);
    store_bind_text(st, 6, lvd_hostname());
    return probe_one(s, st, out, err);
}

/* The newest probe of an engine; any_env: whatever its environment, else
 * only those made under env (NULL = ""). */
static int probe_latest(store *s, int64_t engine_id, int any_env, const char *env, lvd_probe *out,
                        lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (prepare_probe(s, " WHERE engine_id = ? AND (? <> 0 OR env = ?) ORDER BY probed_at DESC, id DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_i64(st, 1, engine_id);
    store_bind_int(st, 2, any_env);
    store_bind_text(st, 3, env ? env : "");
    return probe_one(s, st, out, err);
}

int store_probe_latest(store *s, int64_t engine_id, lvd_probe *out, lvd_err *err)
{
    return probe_latest(s, engine_id, 1, NULL, out, err);
}

int store_probe_latest_env(store *s, int64_t engine_id, const char *env, lvd_probe *out, lvd_err *err)
{
    return probe_latest(s, engine_id, 0, env, out, err);
}

/* Prepares: one row per device (one with NULL device columns for an engine
 * or probe without any) of each engine of host ?1 not retired with its
 * newest probe under ?2, by engine then device index: the engine's columns
 * (engine_cols'), the probe's (probe_cols'; NULL: never probed there), the
 * device index, the device's (device_cols'). */
static int prepare_engines_probed(store *s, store_stmt **st, lvd_err *err)
{
    lvd_sb sql = {0};
    lvd_sb_adds(&sql, "SELECT ");
    store_cols_names(&sql, engine_cols, N_ENGINE_COLS, STORE_COL_R, "e.");
    lvd_sb_adds(&sql, ", ");
    store_cols_names(&sql, probe_cols, N_PROBE_COLS, STORE_COL_R, "p.");
    lvd_sb_adds(&sql, ", d.idx, ");
    store_cols_names(&sql, device_cols, N_DEVICE_COLS, STORE_COL_R, "d.");
    lvd_sb_adds(&sql, " FROM engines e LEFT JOIN probes p ON p.id = (SELECT q.id FROM probes q WHERE q.engine_id = e.id"
                      " AND q.env = ?2 ORDER BY q.probed_at DESC, q.id DESC LIMIT 1)"
                      " LEFT JOIN devices d ON d.probe_id = p.id"
                      " WHERE e.host = ?1 AND e.retired_at IS NULL ORDER BY e.id, d.idx");
    int rc = store_prepare(s, lvd_sb_str(&sql), st, err);
    lvd_sb_free(&sql);
    return rc;
}

int store_engines_probed(store *s, const char *host, const char *env, lvd_engine **engines, lvd_probe **probes,
                         size_t *n, lvd_err *err)
{
    *engines = NULL;
    *probes = NULL;
    *n = 0;
    store_stmt *st;
    if (prepare_engines_probed(s, &st, err))
        return -1;
    const int probe = store_cols_width(engine_cols, N_ENGINE_COLS, STORE_COL_R);
    const int idx = probe + store_cols_width(probe_cols, N_PROBE_COLS, STORE_COL_R);
    store_bind_text(st, 1, host ? host : lvd_hostname());
    store_bind_text(st, 2, env ? env : "");
    size_t cap = 0, pcap = 0, dcap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (*n == 0 || (*engines)[*n - 1].id != store_col_i64(st, 0)) {
            *engines = store_grow(*engines, sizeof **engines, *n, &cap);
            *probes = store_grow(*probes, sizeof **probes, *n, &pcap);
            col_engine_at(st, 0, &(*engines)[*n]);
            if (store_col_null(st, probe))
                memset(&(*probes)[*n], 0, sizeof **probes);
            else
                col_probe_at(st, probe, &(*probes)[*n]);
            (*n)++;
            dcap = 0;
        }
        if (!store_col_null(st, idx))
            col_device(st, idx + 1, &(*probes)[*n - 1], &dcap);
    }
    store_finalize(st);
    if (rc != STORE_DONE) {
        store_engine_list_free(*engines, *n);
        store_probe_list_free(*probes, *n);
        *engines = NULL;
        *probes = NULL;
        *n = 0;
        return store_fail(s, err, "cannot read engines and their probes");
    }
    return 0;
}

void store_probe_list_free(lvd_probe *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvd_probe_free(&v[i]);
    free(v);
}

int store_probe_set_cuda_archs(store *s, int64_t probe_id, const char *archs, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "UPDATE probes SET cuda_archs = ? WHERE id = ?", &st, err))
        return -1;
    store_bind_text(st, 1, archs && *archs ? archs : NULL);
    store_bind_i64(st, 2, probe_id);
    return store_step_done(s, st, "cannot record the CUDA archs", err);
}
