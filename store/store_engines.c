/* store_engines.c: engines (llama.cpp build directories) and their probes
 * with the devices each probe saw. Not for running probes or parsing
 * --list-devices (bench/), nor for deciding the TTL (the caller passes it).
 * Engines are known per host (schema 13): a name or a directory names one
 * engine of one machine; lookups by name, the list and registration are
 * this machine's (lvd_hostname); an id is the store's own, any host's. */
#include "store/store_internal.h"

#include "common/util.h"

#include <stdlib.h>
#include <string.h>

#define SELECT_ENGINE \
    "SELECT id, name, dir, build, commit_id, flavour, digest, origin, created_at, host, semver, release_tag," \
    " family FROM engines"

/* The engine in SELECT_ENGINE's columns from column first on. */
static void col_engine_at(store_stmt *st, int first, lvd_engine *e)
{
    memset(e, 0, sizeof *e);
    e->id = store_col_i64(st, first);
    e->name = store_col_strdup(st, first + 1);
    e->dir = store_col_strdup(st, first + 2);
    e->build = store_col_strdup(st, first + 3);
    e->commit = store_col_strdup(st, first + 4);
    e->flavour = store_col_strdup(st, first + 5);
    e->digest = store_col_strdup(st, first + 6);
    e->origin = store_col_strdup(st, first + 7);
    e->created_at = store_col_i64(st, first + 8);
    e->host = store_col_strdup(st, first + 9);
    e->semver = store_col_strdup(st, first + 10);
    e->release = store_col_strdup(st, first + 11);
    e->family = store_col_strdup(st, first + 12);
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
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO engines (name, dir, build, commit_id, flavour, digest, origin, created_at, host,"
                      " semver, release_tag, family) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(host, name)"
                      " DO UPDATE SET dir = excluded.dir, build = excluded.build, commit_id = excluded.commit_id,"
                      " semver = excluded.semver, release_tag = excluded.release_tag, family = excluded.family,"
                      " flavour = excluded.flavour, digest = excluded.digest, origin = excluded.origin,"
                      " retired_at = NULL"
                      " RETURNING id, created_at",
                      &st, err))
        return -1;
    store_bind_text(st, 1, e->name);
    store_bind_text(st, 2, e->dir);
    store_bind_text(st, 3, e->build);
    store_bind_text(st, 4, e->commit);
    store_bind_text(st, 5, e->flavour);
    store_bind_text(st, 6, e->digest);
    store_bind_text(st, 7, e->origin);
    store_bind_i64(st, 8, e->created_at ? e->created_at : lvd_now());
    store_bind_text(st, 9, engine_host(e));
    store_bind_text(st, 10, e->semver);
    store_bind_text(st, 11, e->release);
    store_bind_text(st, 12, lvd_engine_family(e));
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
    if (store_prepare(s, SELECT_ENGINE " WHERE id = ?", &st, err))
        return -1;
    store_bind_i64(st, 1, id);
    return engine_one(s, st, out, err);
}

int store_engine_by_name(store *s, const char *name, lvd_engine *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_prepare(s, SELECT_ENGINE " WHERE host = ? AND name = ?", &st, err))
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
    if (store_prepare(s, every ? SELECT_ENGINE " WHERE retired_at IS NULL ORDER BY id"
                               : SELECT_ENGINE " WHERE host = ?1 AND retired_at IS NULL ORDER BY id",
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

int store_probe_put(store *s, lvd_probe *p, lvd_err *err)
{
    if (!p->binary || !*p->backend)
        return lvd_errf(err, "%s: a probe needs a binary and a backend label", s->path);
    if (p->probed_at == 0)
        p->probed_at = lvd_now();
    if (store_begin(s, err))
        return -1;
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO probes (engine_id, \"binary\", bin_mtime_ns, bin_size, probed_at, backend, reason,"
                      " env, files, backends, no_device, cuda_archs, flags)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        goto fail;
    store_bind_i64(st, 1, p->engine_id);
    store_bind_text(st, 2, p->binary);
    store_bind_i64(st, 3, p->bin_mtime_ns);
    store_bind_i64(st, 4, p->bin_size);
    store_bind_i64(st, 5, p->probed_at);
    store_bind_text(st, 6, p->backend);
    store_bind_text(st, 7, p->reason);
    store_bind_text(st, 8, p->env ? p->env : "");
    store_bind_text(st, 9, p->files);
    store_bind_text(st, 10, p->backends[0] ? p->backends : NULL);
    store_bind_text(st, 11, p->no_device);
    store_bind_text(st, 12, p->cuda_archs[0] ? p->cuda_archs : NULL);
    store_bind_text(st, 13, p->flags);
    if (store_step_done(s, st, "cannot record probe", err))
        goto fail;
    int64_t id = store_last_id(s);
    if (store_prepare(s,
                      "INSERT INTO devices (probe_id, idx, selector, name, total_mib, free_mib, backend, compute_cap)"
                      " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      &st, err))
        goto fail;
    for (size_t i = 0; i < p->n_devices; i++) {
        const lvd_device *d = &p->devices[i];
        store_bind_i64(st, 1, id);
        store_bind_i64(st, 2, (int64_t)i);
        store_bind_text(st, 3, d->selector);
        store_bind_text(st, 4, d->name);
        store_bind_i64_or_null(st, 5, d->total_mib, -1);
        store_bind_i64_or_null(st, 6, d->free_mib, -1);
        store_bind_text(st, 7, d->backend);
        store_bind_text(st, 8, d->compute_cap[0] ? d->compute_cap : NULL);
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

/* Appends the device in st's columns first .. first + 5 (DEVICE_COLS) to p. */
static void col_device(store_stmt *st, int first, lvd_probe *p, size_t *cap)
{
    p->devices = store_grow(p->devices, sizeof *p->devices, p->n_devices, cap);
    lvd_device *d = &p->devices[p->n_devices++];
    memset(d, 0, sizeof *d);
    store_col_copy(st, first, d->selector, sizeof d->selector);
    store_col_copy(st, first + 1, d->name, sizeof d->name);
    d->total_mib = store_col_i64_or(st, first + 2, -1);
    d->free_mib = store_col_i64_or(st, first + 3, -1);
    store_col_copy(st, first + 4, d->backend, sizeof d->backend);
    store_col_copy(st, first + 5, d->compute_cap, sizeof d->compute_cap);
}

static int load_devices(store *s, lvd_probe *p, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s,
                      "SELECT selector, name, total_mib, free_mib, backend, compute_cap"
                      " FROM devices WHERE probe_id = ? ORDER BY idx",
                      &st, err))
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

/* Reads the probe in st's columns first .. first + 13 (SELECT_PROBE's), no devices. */
static void col_probe_at(store_stmt *st, int first, lvd_probe *out)
{
    memset(out, 0, sizeof *out);
    out->id = store_col_i64(st, first);
    out->engine_id = store_col_i64(st, first + 1);
    out->binary = store_col_strdup(st, first + 2);
    out->bin_mtime_ns = store_col_i64(st, first + 3);
    out->bin_size = store_col_i64(st, first + 4);
    out->probed_at = store_col_i64(st, first + 5);
    store_col_copy(st, first + 6, out->backend, sizeof out->backend);
    out->reason = store_col_strdup(st, first + 7);
    out->env = store_col_strdup(st, first + 8);
    out->files = store_col_strdup(st, first + 9);
    store_col_copy(st, first + 10, out->backends, sizeof out->backends);
    out->no_device = store_col_strdup(st, first + 11);
    store_col_copy(st, first + 12, out->cuda_archs, sizeof out->cuda_archs);
    out->flags = store_col_strdup(st, first + 13);
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

#define SELECT_PROBE \
    "SELECT id, engine_id, \"binary\", bin_mtime_ns, bin_size, probed_at, backend, reason, env," \
    " files, backends, no_device, cuda_archs, flags FROM probes"

int store_probe_fresh(store *s, const char *binary, const char *env, int64_t mtime_ns, int64_t size,
                      int64_t now, int64_t ttl, lvd_probe *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_prepare(s,
                      SELECT_PROBE " WHERE \"binary\" = ? AND env = ? AND bin_mtime_ns = ? AND bin_size = ?"
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
    if (store_prepare(s, SELECT_PROBE " WHERE engine_id = ? AND (? <> 0 OR env = ?) ORDER BY probed_at DESC, id DESC"
                      " LIMIT 1", &st, err))
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

/* One row per device (one with NULL device columns for an engine or probe
 * without any) of each engine of host ?1 not retired with its newest probe
 * under ?2, by engine then device index: columns 0 .. 12 the engine's
 * (SELECT_ENGINE's), 13 .. 26 the probe's (NULL: never probed there), 27 the
 * device index, 28 .. 33 the device's. */
#define SELECT_ENGINES_PROBED                                                                             \
    "SELECT e.id, e.name, e.dir, e.build, e.commit_id, e.flavour, e.digest, e.origin, e.created_at,"      \
    " e.host, e.semver, e.release_tag, e.family, p.id, p.engine_id, p.\"binary\", p.bin_mtime_ns, p.bin_size,"        \
    " p.probed_at, p.backend, p.reason, p.env, p.files, p.backends, p.no_device, p.cuda_archs, p.flags,"  \
    " d.idx, d.selector, d.name, d.total_mib, d.free_mib, d.backend, d.compute_cap"                       \
    " FROM engines e LEFT JOIN probes p ON p.id = (SELECT q.id FROM probes q WHERE q.engine_id = e.id"    \
    " AND q.env = ?2 ORDER BY q.probed_at DESC, q.id DESC LIMIT 1)"                                       \
    " LEFT JOIN devices d ON d.probe_id = p.id"                                                           \
    " WHERE e.host = ?1 AND e.retired_at IS NULL ORDER BY e.id, d.idx"

int store_engines_probed(store *s, const char *host, const char *env, lvd_engine **engines, lvd_probe **probes,
                         size_t *n, lvd_err *err)
{
    *engines = NULL;
    *probes = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, SELECT_ENGINES_PROBED, &st, err))
        return -1;
    store_bind_text(st, 1, host ? host : lvd_hostname());
    store_bind_text(st, 2, env ? env : "");
    size_t cap = 0, pcap = 0, dcap = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        if (*n == 0 || (*engines)[*n - 1].id != store_col_i64(st, 0)) {
            *engines = store_grow(*engines, sizeof **engines, *n, &cap);
            *probes = store_grow(*probes, sizeof **probes, *n, &pcap);
            col_engine_at(st, 0, &(*engines)[*n]);
            if (store_col_null(st, 13))
                memset(&(*probes)[*n], 0, sizeof **probes);
            else
                col_probe_at(st, 13, &(*probes)[*n]);
            (*n)++;
            dcap = 0;
        }
        if (!store_col_null(st, 27))
            col_device(st, 28, &(*probes)[*n - 1], &dcap);
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
