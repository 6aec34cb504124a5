/* engines.c: the registered engines with their cached probes, checked
 * against the binaries on disk by stat alone (see engines.h). Not for
 * running any engine. */
#include "select/engines.h"

#include "engine/files.h"
#include "engine/visibility.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int sel_stat_file(const char *path, int64_t *mtime_ns, int64_t *size)
{
    struct stat sb;
    if (!path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return -1;
    *mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    *size = (int64_t)sb.st_size;
    return 0;
}

/* Fills e->probe_ok and e->why from the probe and the binary it asked. */
static void judge_probe(sel_engine *e)
{
    const lvd_probe *p = &e->probe;
    int64_t mtime, size;
    if (p->id == 0) {
        snprintf(e->why, sizeof e->why, "never probed under this environment (run lvd probe)");
        return;
    }
    if (strcmp(p->backend, LVD_BACKEND_UNKNOWN) == 0) {
        snprintf(e->why, sizeof e->why, "its last probe could not ask it: %s (run lvd probe)",
                 p->reason ? p->reason : "no reason recorded");
        return;
    }
    errno = 0;
    if (sel_stat_file(p->binary, &mtime, &size) != 0) {
        snprintf(e->why, sizeof e->why, "%s: %s", p->binary ? p->binary : "(no binary)",
                 errno ? strerror(errno) : "not a regular file");
        return;
    }
    if (mtime != p->bin_mtime_ns || size != p->bin_size) {
        snprintf(e->why, sizeof e->why, "%s changed since it was probed (run lvd probe)", p->binary);
        return;
    }
    engine_files_change ch;
    int same = 1;
    if (p->files && e->files_listed) /* an older probe recorded none */
        same = engine_files_compare(p->files, &e->files, &ch);
    if (!same) {
        char text[280];
        engine_files_change_text(&ch, "the last probe", text, sizeof text);
        snprintf(e->why, sizeof e->why, "%s (run lvd probe)", text);
        return;
    }
    e->probe_ok = 1;
}

static char *server_of(const lvd_engine *e)
{
    char *path = lvd_xasprintf("%s/llama-server", e->dir);
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && access(path, X_OK) == 0)
        return path;
    free(path);
    return NULL;
}

int sel_engines_load(store *s, sel_engines *out, lvd_err *err)
{
    char *env = engine_visibility_current();
    int rc = sel_engines_load_env(s, env, out, err);
    free(env);
    return rc;
}

int sel_engines_load_env(store *s, const char *env, sel_engines *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lvd_engine *list;
    lvd_probe *probes;
    size_t n;
    /* the engines and each one's newest probe in one query, not one (and one for its devices) per engine */
    if (store_engines_probed(s, NULL, env, &list, &probes, &n, err) != 0)
        return -1;
    out->env = lvd_xstrdup(env ? env : "");
    out->v = lvd_xcalloc(n ? n : 1, sizeof *out->v);
    for (size_t i = 0; i < n; i++) {
        sel_engine *e = &out->v[out->n++];
        e->e = list[i];      /* both moved */
        e->probe = probes[i];
        lvd_err ferr = {{0}};
        e->files_listed = engine_files_list(e->e.dir, &e->files, &ferr) == 0;
        snprintf(e->files_err, sizeof e->files_err, "%s", ferr.msg);
        judge_probe(e);
        e->server = server_of(&e->e);
        if (e->probe_ok && !e->server)
            snprintf(e->why, sizeof e->why, "no executable llama-server in %s", e->e.dir);
    }
    free(list);
    free(probes);
    return 0;
}

void sel_engines_free(sel_engines *es)
{
    for (size_t i = 0; i < es->n; i++) {
        lvd_engine_free(&es->v[i].e);
        lvd_probe_free(&es->v[i].probe);
        free(es->v[i].server);
        if (es->v[i].files_listed)
            engine_fileset_free(&es->v[i].files);
    }
    free(es->v);
    free(es->env);
    memset(es, 0, sizeof *es);
}

const sel_engine *sel_engines_find(const sel_engines *es, int64_t id)
{
    for (size_t i = 0; i < es->n; i++)
        if (es->v[i].e.id == id)
            return &es->v[i];
    return NULL;
}

const sel_engine *sel_engines_by_name(const sel_engines *es, const char *name)
{
    for (size_t i = 0; i < es->n; i++)
        if (es->v[i].e.name && strcmp(es->v[i].e.name, name) == 0)
            return &es->v[i];
    return NULL;
}

const lvd_device *sel_engine_device(const sel_engine *e, const char *selector)
{
    for (size_t i = 0; i < e->probe.n_devices; i++)
        if (strcmp(e->probe.devices[i].selector, selector) == 0)
            return &e->probe.devices[i];
    return NULL;
}

int sel_arm_device(const sel_engine *e, const lvd_params *p, const lvd_device **out)
{
    *out = NULL;
    if (p->device[0]) { /* a split "A/B": every device listed, the first returned */
        size_t n;
        char **dev = lvd_split(p->device, '/', &n);
        int all = n > 0;
        for (size_t i = 0; i < n && all; i++)
            all = sel_engine_device(e, dev[i]) != NULL;
        *out = all ? sel_engine_device(e, dev[0]) : NULL;
        lvd_strv_free(dev);
        return *out ? 0 : -1;
    }
    if (p->ngl != 0 && e->probe.n_devices > 0)
        *out = &e->probe.devices[0];
    return 0;
}

int sel_engine_usable(const sel_engine *e)
{
    return e->probe_ok && e->server != NULL;
}

void sel_engine_selectors(const sel_engine *e, char *buf, size_t len)
{
    lvd_sb sb = {0};
    for (size_t i = 0; i < e->probe.n_devices; i++)
        lvd_sb_addf(&sb, "%s%s", i ? ", " : "", e->probe.devices[i].selector);
    snprintf(buf, len, "%s", sb.len ? lvd_sb_str(&sb) : "no devices");
    lvd_sb_free(&sb);
}

int sel_check_status(store *s, const char *artifact, const char *host, int64_t engine_id,
                     const char *device, char status[8], char **reason, lvd_err *err)
{
    if (reason)
        *reason = NULL;
    if (!device || !*device) {
        snprintf(status, 8, "base");
        return 0;
    }
    lvd_check c;
    int rc = store_check_latest(s, artifact, host, engine_id, device, &c, err);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        snprintf(status, 8, "none");
        return 0;
    }
    snprintf(status, 8, "%s", c.status);
    if (reason && c.reason) {
        *reason = c.reason;
        c.reason = NULL;
    }
    lvd_check_free(&c);
    return 0;
}

int sel_check_admits(const char *status)
{
    return strcmp(status, "pass") == 0 || strcmp(status, "base") == 0;
}

size_t sel_engines_device_count(const sel_engines *es)
{
    size_t n = 0;
    for (size_t i = 0; i < es->n; i++)
        n += es->v[i].probe.n_devices;
    return n;
}

size_t sel_engines_candidates(const sel_engines *es, int need_server, sel_device_keep keep,
                              void *ctx, sel_candidate *cands, lvd_device *devs)
{
    size_t n = 0, nd = 0;
    for (size_t i = 0; i < es->n; i++) {
        const sel_engine *e = &es->v[i];
        if (!e->probe_ok || (need_server && !e->server))
            continue;
        size_t first = nd;
        for (size_t j = 0; j < e->probe.n_devices; j++)
            if (!keep || keep(ctx, e, &e->probe.devices[j]))
                devs[nd++] = e->probe.devices[j];
        if (e->probe.n_devices > 0 ? nd == first : (keep && !keep(ctx, e, NULL)))
            continue;
        cands[n++] = (sel_candidate){.engine_id = e->e.id, .name = e->e.name,
                                     .backend = e->probe.backend, .devices = devs + first,
                                     .n_devices = nd - first};
    }
    return n;
}

char *sel_env_with(const char *base, const char *assignments, const char *override)
{
    char *here = base ? NULL : engine_visibility_current();
    char *with = engine_visibility_apply(base ? base : here, assignments);
    char *env = engine_visibility_apply(with, override);
    free(here);
    free(with);
    return env;
}

int sel_visibility_holds(const sel_engines *es, const char *measured_env, const lvd_device *d, char *why,
                         size_t len)
{
    if (!d)
        return 1;
    char *measured = engine_visibility_for_device(measured_env, d->backend);
    char *here = engine_visibility_for_device(es->env, d->backend);
    int same = strcmp(measured, here) == 0;
    if (!same)
        snprintf(why, len, "measured with %s, but a server started here sees %s",
                 *measured ? measured : "no visibility variable set", *here ? here : "none set");
    free(measured);
    free(here);
    return same;
}
