/* discover.c: `lvd probe --discover` (see discover.h): the search for engine
 * directories, their identification by `--version`, naming, registration
 * through engine/register.c, and the result as the tool prints it (--json,
 * the table, the summary line), beside the code that fills and frees each
 * field of it. */
#include "fetch/discover.h"

#include "engine/backends.h"
#include "engine/files.h"
#include "engine/probe.h"
#include "common/cli.h"
#include "common/json.h"
#include "common/proc.h"
#include "fetch/fetch.h"
#include "engine/register.h"
#include "engine/registration.h"
#include "fetch/unpack.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* --- the search ------------------------------------------------------------ */

static int is_exec(const char *dir, const char *name)
{
    char *p = lvd_xasprintf("%s/%s", dir, name);
    struct stat st;
    int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
    free(p);
    return ok;
}

int fetch_discover_is_engine_dir(const char *dir)
{
    return is_exec(dir, "llama-bench") || is_exec(dir, "llama-server");
}

char **fetch_discover_places(size_t *n)
{
    const char *env = getenv("LVD_DISCOVER_PLACES");
    return lvd_split(env ? env : FETCH_DISCOVER_DEFAULT_PLACES, ':', n);
}

typedef struct cands {
    fetch_discover_cand *v;
    size_t n;
} cands;

static int seen(const cands *c, const char *dir)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].dir && !strcmp(c->v[i].dir, dir))
            return 1;
    return 0;
}

static void push(cands *c, char *dir, const char *source, char *reason)
{
    if (dir && seen(c, dir)) {
        free(dir);
        free(reason);
        return;
    }
    c->v = lvd_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
    c->v[c->n++] = (fetch_discover_cand){.dir = dir, .source = lvd_xstrdup(source), .reason = reason};
}

char *fetch_discover_engine_dir(const char *dir, char **why)
{
    *why = NULL;
    char *real = realpath(dir, NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *why = lvd_xasprintf("%s: %s", dir, real ? "not a directory" : strerror(errno));
        free(real);
        return NULL;
    }
    if (fetch_discover_is_engine_dir(real))
        return real;
    char *rel = NULL;
    char *found = NULL;
    if (fetch_find_engine_dir(real, &rel) == 0 && rel[0]) {
        char *sub = lvd_xasprintf("%s/%s", real, rel);
        if (fetch_discover_is_engine_dir(sub))
            found = realpath(sub, NULL);
        free(sub);
    }
    free(rel);
    if (!found)
        *why = lvd_xasprintf("%s: holds no executable llama-server or llama-bench", dir);
    free(real);
    return found;
}

/* A directory the user named (operand or variable); kept with a reason when
 * it holds no engine. */
static void named(cands *c, const char *dir, const char *source)
{
    char *why;
    char *d = fetch_discover_engine_dir(dir, &why);
    push(c, d, source, why);
}

/* A directory searched by us: kept only when it holds an engine itself. */
static void searched(cands *c, const char *dir, const char *source)
{
    if (dir[0] != '/')
        return; /* relative PATH entries depend on the working directory */
    char *real = realpath(dir, NULL);
    if (real && fetch_discover_is_engine_dir(real))
        push(c, real, source, NULL);
    else
        free(real);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void from_env(cands *c)
{
    char **vars = NULL;
    size_t n = 0;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        if (!eq || eq[1] == '\0')
            continue;
        size_t klen = (size_t)(eq - *e);
        int engine = klen > 11 && !strncmp(*e, "LVD_ENGINE_", 11);
        int aide = (klen == 17 && !strncmp(*e, "AIDE_LLAMA_SERVER", 17)) ||
                   (klen > 18 && !strncmp(*e, "AIDE_LLAMA_SERVER_", 18));
        if (engine || aide)
            lvd_strv_push(&vars, &n, lvd_xstrdup(*e));
    }
    if (!n)
        return;
    /* LVD_ENGINE_* first, then AIDE_*: 'L' > 'A', so sort each group */
    qsort(vars, n, sizeof *vars, cmp_str);
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            int engine = !strncmp(vars[i], "LVD_ENGINE_", 11);
            if (engine != (pass == 0))
                continue;
            char *eq = strchr(vars[i], '=');
            *eq = '\0';
            const char *value = eq + 1;
            char *source = lvd_xasprintf("env:%s", vars[i]);
            struct stat st;
            if (stat(value, &st) == 0 && !S_ISDIR(st.st_mode)) {
                /* a binary: the engine is its directory (the link's, not its target's) */
                char *dir = lvd_xstrdup(value);
                char *slash = strrchr(dir, '/');
                if (slash)
                    *(slash == dir ? slash + 1 : slash) = '\0';
                else
                    strcpy(dir, ".");
                named(c, dir, source);
                free(dir);
            } else {
                named(c, value, source);
            }
            free(source);
            *eq = '=';
        }
    }
    lvd_strv_free(vars);
}

static void from_path(cands *c)
{
    const char *path = getenv("PATH");
    char **dirs = lvd_split(path ? path : "", ':', NULL);
    for (size_t i = 0; dirs[i]; i++)
        searched(c, dirs[i], "path");
    lvd_strv_free(dirs);
}

static void from_places(cands *c)
{
    size_t n;
    char **pats = fetch_discover_places(&n);
    const char *home = getenv("HOME");
    for (size_t i = 0; i < n; i++) {
        char *pat;
        if (pats[i][0] == '~' && (pats[i][1] == '/' || pats[i][1] == '\0')) {
            if (!home || !*home)
                continue;
            pat = lvd_xasprintf("%s%s", home, pats[i] + 1);
        } else {
            pat = lvd_xstrdup(pats[i]);
        }
        glob_t g;
        if (glob(pat, GLOB_ONLYDIR, NULL, &g) == 0) {
            for (size_t k = 0; k < g.gl_pathc; k++)
                searched(c, g.gl_pathv[k], "place");
        }
        globfree(&g);
        free(pat);
    }
    lvd_strv_free(pats);
}

static void from_benchdirs(cands *c)
{
    char *builds = fetch_builds_dir_default();
    DIR *dh = opendir(builds);
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while (dh && (e = readdir(dh)))
        if (e->d_name[0] != '.') /* temporaries of an unfinished fetch start with '.' */
            lvd_strv_push(&names, &n, lvd_xstrdup(e->d_name));
    if (dh)
        closedir(dh);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char *root = lvd_xasprintf("%s/%s", builds, names[i]);
        struct stat st;
        char *rel = NULL;
        if (lstat(root, &st) == 0 && S_ISDIR(st.st_mode) && fetch_find_engine_dir(root, &rel) == 0) {
            char *dir = rel[0] ? lvd_xasprintf("%s/%s", root, rel) : lvd_xstrdup(root);
            searched(c, dir, "benchdir");
            free(dir);
        }
        free(rel);
        free(root);
    }
    lvd_strv_free(names);
    free(builds);
}

int fetch_discover_candidates(const fetch_discover_opts *o, fetch_discover_cand **out, size_t *n, lvd_err *err)
{
    cands c = {0};
    for (size_t i = 0; i < o->n_dirs; i++) {
        char *why;
        char *d = fetch_discover_engine_dir(o->dirs[i], &why);
        if (!d) {
            lvd_errf(err, "%s", why);
            free(why);
            fetch_discover_cands_free(c.v, c.n);
            return -1;
        }
        push(&c, d, "operand", NULL);
    }
    from_env(&c);
    from_path(&c);
    from_places(&c);
    from_benchdirs(&c);
    *out = c.v;
    *n = c.n;
    return 0;
}

void fetch_discover_cands_free(fetch_discover_cand *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].dir);
        free(v[i].source);
        free(v[i].reason);
    }
    free(v);
}

/* --- identification and naming --------------------------------------------- */

static int taken_by(const char *name, char *const *taken, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (taken[i] && !strcmp(taken[i], name))
            return 1;
    return 0;
}

char *fetch_discover_name(const char *build, const char *backend, const char *backends, const char *dir,
                          char *const *taken, size_t n)
{
    /* a build that listed no device but carries an accelerator backend is a
     * build of that backend (a Vulkan build with no reachable GPU) */
    char accel[64] = "";
    if (backend && !strcmp(backend, LVD_BACKEND_CPU))
        engine_backends_accelerators(backends, accel, sizeof accel);
    const char *label = *accel ? accel : backend;
    char *base = label && *label && strcmp(label, LVD_BACKEND_UNKNOWN)
                     ? lvd_xasprintf("%s-%s", build, label)
                     : engine_register_default_name(build, dir);
    if (!engine_register_name_valid(base)) {
        free(base);
        base = engine_register_default_name(build, dir);
    }
    char *name = lvd_xstrdup(base);
    for (int k = 2; taken_by(name, taken, n); k++) {
        free(name);
        name = lvd_xasprintf("%s-%d", base, k);
    }
    free(base);
    return name;
}

/* --- the whole discovery ------------------------------------------------------ */

/* Runs dir's probe binary for f->probe (binary, mtime and size filled, as
 * engine_probe_engine_ex records them), with the backends dir's files carry
 * and the no-device note (engine/backends.h; registration records them again
 * with the file set). */
static void probe_dir(fetch_discover_found *f, int timeout_ms)
{
    lvd_engine tmp = {.dir = f->dir};
    char *binary = engine_probe_binary(&tmp);
    struct stat st;
    memset(&f->probe, 0, sizeof f->probe);
    f->probe.binary = binary;
    if (binary && stat(binary, &st) == 0) {
        f->probe.bin_mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
        f->probe.bin_size = (int64_t)st.st_size;
    }
    if (binary)
        engine_probe_ask(binary, timeout_ms, &f->probe);
    engine_fileset fs;
    if (engine_files_list(f->dir, &fs, NULL) == 0) {
        engine_backends_of(&fs, f->probe.backends, sizeof f->probe.backends);
        engine_fileset_free(&fs);
    }
    if (strcmp(f->probe.backend, LVD_BACKEND_UNKNOWN))
        f->probe.no_device = engine_backends_no_device(f->probe.backends, f->probe.devices, f->probe.n_devices);
    f->probed = 1;
}

static const lvd_engine *by_dir(const lvd_engine *v, size_t n, const char *dir)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].dir && !strcmp(v[i].dir, dir))
            return &v[i];
    return NULL;
}

static int fail(int *exit_code, int code)
{
    *exit_code = code;
    return -1;
}

/* Registers the new engine f (named, identified, probed) and records its
 * probe (engine_register_probe, with the probe already run). */
static int register_found(store *s, fetch_discover_found *f, int timeout_ms, int *exit_code, lvd_err *err)
{
    engine_register_opts ro = {
        .dir = f->dir, .build = f->build, .name = f->name, .timeout_ms = timeout_ms,
        .commit = f->commit ? f->commit : "", .semver = f->semver,
        .family = f->family};
    engine_registration r;
    engine_register_probe(s, &ro, 0, &f->probe, &r);
    f->probe = r.probe; /* back: f owns it whatever happened */
    memset(&r.probe, 0, sizeof r.probe);
    int rc = 0;
    if (r.registered)
        f->engine_id = r.engine.id;
    if (!r.probed) { /* not registered, or its probe not recorded */
        *exit_code = r.exit_code;
        *err = r.err;
        rc = -1;
    }
    engine_registration_free(&r);
    return rc;
}

/* A directory the store has already (known): its names copied into f and
 * its probe refreshed, recorded unless a dry run (which probes it apart). */
static int found_known(store *s, const fetch_discover_opts *o, const lvd_engine *known, int timeout_ms,
                       fetch_discover_found *f, int *exit_code, lvd_err *err)
{
    f->status = "known";
    f->name = lvd_xstrdup(known->name);
    f->build = lvd_xstrdup(known->build);
    f->commit = known->commit ? lvd_xstrdup(known->commit) : NULL;
    f->semver = known->semver ? lvd_xstrdup(known->semver) : NULL;
    f->family = lvd_xstrdup(lvd_engine_family(known));
    f->engine_id = known->id;
    if (!s || o->dry_run) {
        probe_dir(f, timeout_ms);
        return 0;
    }
    lvd_err perr = {{0}};
    if (engine_probe_engine(s, known, 0, timeout_ms, &f->probe, &perr) != 0) {
        lvd_errf(err, "%s: %s", known->name, perr.msg);
        *exit_code = LVD_EXIT_STORE;
        return -1;
    }
    f->probed = 1;
    return 0;
}

int fetch_discover_run(store *s, const fetch_discover_opts *o, fetch_discover_result *r, int *exit_code, lvd_err *err)
{
    memset(r, 0, sizeof *r);
    r->dry_run = o->dry_run;
    *exit_code = LVD_EXIT_OK;
    int timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : ENGINE_PROBE_TIMEOUT_MS;
    fetch_discover_cand *cv = NULL;
    size_t cn = 0;
    if (fetch_discover_candidates(o, &cv, &cn, err) != 0)
        return fail(exit_code, LVD_EXIT_INPUT);
    lvd_engine *ev = NULL;
    size_t en = 0;
    if (s && store_engine_list(s, &ev, &en, err) != 0) {
        fetch_discover_cands_free(cv, cn);
        return fail(exit_code, LVD_EXIT_STORE);
    }
    char **taken = NULL;
    size_t n_taken = 0;
    for (size_t i = 0; i < en; i++)
        lvd_strv_push(&taken, &n_taken, lvd_xstrdup(ev[i].name));
    r->v = lvd_xcalloc(cn ? cn : 1, sizeof *r->v);
    int rc = 0;
    for (size_t i = 0; i < cn && rc == 0; i++) {
        fetch_discover_found *f = &r->v[r->n++];
        f->source = lvd_xstrdup(cv[i].source);
        if (!cv[i].dir) {
            f->status = "missing";
            f->reason = lvd_xstrdup(cv[i].reason);
            r->n_missing++;
            continue;
        }
        f->dir = lvd_xstrdup(cv[i].dir);
        lvd_progress("discovering %s (%zu/%zu)", f->dir, i + 1, cn);
        const lvd_engine *known = by_dir(ev, en, f->dir);
        if (known) {
            r->n_known++;
            rc = found_known(s, o, known, timeout_ms, f, exit_code, err);
            continue;
        }
        lvd_err verr = {{0}};
        engine_version ver;
        if (engine_ask_version(f->dir, timeout_ms, &ver, &verr) != 0) {
            f->status = "unidentified";
            f->reason = lvd_xstrdup(verr.msg);
            r->n_unidentified++;
            probe_dir(f, timeout_ms);
            continue;
        }
        char build[32];
        engine_version_build(&ver, build, sizeof build);
        f->build = lvd_xstrdup(build);
        f->commit = ver.commit[0] ? lvd_xstrdup(ver.commit) : NULL;
        f->semver = ver.semver[0] ? lvd_xstrdup(ver.semver) : NULL;
        f->family = lvd_xstrdup(ver.family ? ver.family : LVD_FAMILY_MAINLINE);
        probe_dir(f, timeout_ms);
        f->name = fetch_discover_name(f->build, f->probe.backend, f->probe.backends, f->dir, taken, n_taken);
        lvd_strv_push(&taken, &n_taken, lvd_xstrdup(f->name));
        f->status = "new";
        r->n_new++;
        if (!o->dry_run && register_found(s, f, timeout_ms, exit_code, err) != 0)
            rc = -1;
    }
    lvd_progress_done();
    lvd_strv_free(taken);
    store_engine_list_free(ev, en);
    fetch_discover_cands_free(cv, cn);
    if (rc != 0)
        fetch_discover_result_free(r);
    return rc;
}

void fetch_discover_result_free(fetch_discover_result *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        fetch_discover_found *f = &r->v[i];
        free(f->dir);
        free(f->source);
        free(f->build);
        free(f->commit);
        free(f->semver);
        free(f->family);
        free(f->name);
        free(f->reason);
        if (f->probed)
            lvd_probe_free(&f->probe);
        else
            free(f->probe.binary);
    }
    free(r->v);
    memset(r, 0, sizeof *r);
}

int fetch_discover_exit_code(const fetch_discover_result *r)
{
    if (r->n_new + r->n_known + r->n_unidentified == 0)
        return LVD_EXIT_FAIL;
    if (r->n_unidentified)
        return LVD_EXIT_PARTIAL;
    for (size_t i = 0; i < r->n; i++)
        if (r->v[i].probed && !strcmp(r->v[i].probe.backend, LVD_BACKEND_UNKNOWN))
            return LVD_EXIT_PARTIAL;
    return LVD_EXIT_OK;
}

/* --- the result as lvd probe --discover prints it ----------------------------- */

static const char *backend_of(const fetch_discover_found *f)
{
    return f->probed && f->probe.backend[0] ? f->probe.backend : LVD_BACKEND_UNKNOWN;
}

cJSON *fetch_discover_json(const fetch_discover_result *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddBoolToObject(root, "dry_run", r->dry_run);
    cJSON_AddNumberToObject(root, "new", (double)r->n_new);
    cJSON_AddNumberToObject(root, "known", (double)r->n_known);
    cJSON *arr = cJSON_AddArrayToObject(root, "found");
    for (size_t i = 0; i < r->n; i++) {
        const fetch_discover_found *f = &r->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "path", lvd_json_str(f->dir));
        cJSON_AddItemToObject(o, "source", lvd_json_str(f->source));
        cJSON_AddItemToObject(o, "build", lvd_json_str(f->build));
        cJSON_AddItemToObject(o, "commit", lvd_json_str(f->commit));
        cJSON_AddItemToObject(o, "family", lvd_json_str(f->family));
        cJSON_AddItemToObject(o, "semver", lvd_json_str(f->semver));
        cJSON_AddItemToObject(o, "backend", lvd_json_str(f->dir ? backend_of(f) : NULL));
        cJSON_AddItemToObject(o, "name", lvd_json_str(f->name));
        cJSON_AddStringToObject(o, "status", f->status);
        const char *reason = f->reason                                          ? f->reason
                             : f->probed && f->probe.reason && *f->probe.reason ? f->probe.reason
                                                                                : NULL;
        cJSON_AddItemToObject(o, "reason", lvd_json_str(reason));
        cJSON_AddItemToObject(o, "engine_id", lvd_json_num_if(f->engine_id > 0, (double)f->engine_id));
        cJSON *devs = cJSON_AddArrayToObject(o, "devices");
        for (size_t k = 0; f->probed && k < f->probe.n_devices; k++)
            cJSON_AddItemToArray(devs, cJSON_CreateString(f->probe.devices[k].selector));
        size_t nb;
        char **bv = lvd_split(f->probed ? f->probe.backends : "", ',', &nb);
        cJSON_AddItemToObject(o, "backends", lvd_json_strings(bv, nb));
        lvd_strv_free(bv);
        cJSON_AddItemToObject(o, "no_device", lvd_json_str(f->probed ? f->probe.no_device : NULL));
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

char *fetch_discover_summary(const fetch_discover_result *r)
{
    size_t found = r->n_new + r->n_known + r->n_unidentified;
    lvd_sb sb = {0};
    if (!found) {
        lvd_sb_adds(&sb, "no llama.cpp engine found (on PATH, in LVD_ENGINE_* / AIDE_LLAMA_SERVER*, "
                         "in the usual places or the bench dirs)");
    } else if (r->n_new == 0) {
        lvd_sb_addf(&sb, "nothing new: %zu engine%s found, %zu already registered", found,
                    found == 1 ? "" : "s", r->n_known);
    } else {
        lvd_sb_addf(&sb, "%s %zu new engine%s (%zu found, %zu already registered)",
                    r->dry_run ? "dry run: would register" : "registered", r->n_new,
                    r->n_new == 1 ? "" : "s", found, r->n_known);
    }
    if (r->n_unidentified)
        lvd_sb_addf(&sb, "; %zu could not be identified", r->n_unidentified);
    if (r->n_missing)
        lvd_sb_addf(&sb, "; %zu named by the environment missing", r->n_missing);
    if (r->dry_run)
        lvd_sb_adds(&sb, "; nothing written");
    return lvd_sb_detach(&sb);
}

void fetch_discover_table(FILE *f, const fetch_discover_result *r)
{
    if (r->n) {
        fprintf(f, "%-12s %-20s %-8s %-10s %-12s %-26s %s\n", "STATUS", "NAME", "BUILD", "COMMIT",
                "BACKEND", "SOURCE", "DIR");
        for (size_t i = 0; i < r->n; i++) {
            const fetch_discover_found *e = &r->v[i];
            fprintf(f, "%-12s %-20s %-8s %-10s %-12s %-26s %s\n", e->status, e->name ? e->name : "-",
                    e->build ? e->build : "-", e->commit ? e->commit : "-",
                    e->dir ? backend_of(e) : "-", e->source, e->dir ? e->dir : "-");
            if (e->family && strcmp(e->family, LVD_FAMILY_MAINLINE))
                fprintf(f, "  family: %s\n", e->family);
            if (e->semver)
                fprintf(f, "  version: %s\n", e->semver);
            if (e->reason)
                fprintf(f, "  %s\n", e->reason);
            else if (e->probed && e->probe.reason && *e->probe.reason)
                fprintf(f, "  probe: %s\n", e->probe.reason);
            if (e->probed && e->probe.no_device)
                fprintf(f, "  note: %s\n", e->probe.no_device);
        }
    }
    char *s = fetch_discover_summary(r);
    fprintf(f, "%s\n", s);
    free(s);
}
