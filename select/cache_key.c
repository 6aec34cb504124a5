/* cache_key.c: what lvd select's answer cache keys an answer by (see
 * cache.h): the request (executable, options, environment, host,
 * terminal), the state (store stamp, model, profile, pin file) and the
 * watch list of engine files. Every variable select and the code under it
 * read with getenv is named below (keyed), keyed or not with the reason
 * (e2e_select_cache.sh checks that none is left out). Not for the cache
 * file (cache.c). */
#include "select/cache.h"

#include "builds/pinfile.h"
#include "engine/files.h"
#include "engine/visibility.h"
#include "store/stamp.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

static int by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The variables select and the code under it read (getenv in common/,
 * store/, engine/, builds/ and select/), each keyed or not, and why:
 *   keyed: LVD_HOST, LVD_FAKE_NOW (the host and the clock), LVD_PIN_FILE,
 *     LVD_DATADIR, HOME, XDG_DATA_HOME (the pin file and the data files
 *     found through them), LVD_STORE_FALLBACK (the copy read when the store
 *     cannot be opened), LVD_SELECT_CACHE;
 *   keyed when stderr is a terminal, else they change nothing printed:
 *     NO_COLOR, TERM (colour), LVD_NO_PROGRESS (progress lines);
 *   not keyed: LVD_STORE (the store's resolved path is, in the request);
 *     LVD_LOCK_DIR, LVD_DEVLOCK_FD (the device lock: select runs no
 *     engine); LVD_NVIDIA_SMI, LVD_PROC_ROOT, LVD_SYSFS_ROOT, PATH (host
 *     facts: select reads none, it reads the store's probes);
 *     LVD_LIBPQ_LIBRARY (a PostgreSQL store is never kept);
 *     LVD_LIBCRYPTO_LIBRARY (the SHA-256 of a new model: the same digest
 *     from any library, and recording it moves the store's stamp);
 *   the device visibility variables: engine_visibility_current(). */
static const char *const keyed[] = {"LVD_HOST=", "LVD_FAKE_NOW=", "LVD_PIN_FILE=", "LVD_DATADIR=", "HOME=",
                                    "XDG_DATA_HOME=", "LVD_STORE_FALLBACK=", "LVD_SELECT_CACHE="};
static const char *const keyed_on_tty[] = {"NO_COLOR=", "TERM=", "LVD_NO_PROGRESS="};

/* Whether variable e (NAME=VALUE) is part of the request. */
static int wanted(const char *e, int tty)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(keyed); i++)
        if (lvd_starts_with(e, keyed[i]))
            return 1;
    for (size_t i = 0; tty && i < LVD_ARRAY_LEN(keyed_on_tty); i++)
        if (lvd_starts_with(e, keyed_on_tty[i]))
            return 1;
    return 0;
}

/* The environment part: the keyed variables, sorted, one a line, and the
 * device visibility ones. */
static void add_env(lvd_sb *sb)
{
    int tty = isatty(STDERR_FILENO);
    char **v = NULL;
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        if (wanted(*e, tty))
            lvd_strv_push(&v, &n, lvd_xstrdup(*e));
    if (n)
        qsort(v, n, sizeof *v, by_str);
    for (size_t i = 0; i < n; i++)
        lvd_sb_addf(sb, "env %s\n", v[i]);
    lvd_strv_free(v);
    char *vis = engine_visibility_current();
    lvd_sb_addf(sb, "visibility %s\n", vis);
    free(vis);
}

char *sel_cache_request(const sel_cache_ask *a)
{
    lvd_sb sb = {0};
    lvd_sb_addf(&sb, "lvd select %s\nexe", LVD_VERSION);
    struct stat st;
    if (stat("/proc/self/exe", &st) != 0 || store_stamp_file("/proc/self/exe", &sb, NULL) != 0) {
        lvd_sb_free(&sb); /* no /proc: an upgraded binary could not be told apart */
        return NULL;
    }
    lvd_sb_addf(&sb, "\nstore %s\nmodel %s\nprofile %s\noptions %s\nhost %s\ntty %d%d\n", a->store, a->model,
                a->profile ? a->profile : "-", a->options, lvd_hostname(), isatty(STDOUT_FILENO),
                isatty(STDERR_FILENO));
    add_env(&sb);
    return lvd_sb_detach(&sb);
}

int sel_cache_state(const sel_cache_ask *a, lvd_sb *out, int64_t *newest_ns)
{
    int64_t newest = 0;
    lvd_sb sb = {0};
    lvd_sb_adds(&sb, "store");
    int rc = store_stamp(a->store, &sb, &newest);
    char *real = realpath(a->first, NULL), *pin = builds_pin_default_path();
    lvd_sb_addf(&sb, "\nmodel %s", real ? real : "-");
    if (rc == 0)
        rc = store_stamp_file(a->model, &sb, &newest) | store_stamp_file(a->first, &sb, &newest);
    lvd_sb_addf(&sb, "\nprofile");
    if (rc == 0 && a->profile)
        rc = store_stamp_file(a->profile, &sb, &newest);
    lvd_sb_addf(&sb, "\npin %s", pin ? pin : "-");
    if (rc == 0 && pin)
        rc = store_stamp_file(pin, &sb, &newest);
    lvd_sb_addc(&sb, '\n');
    if (rc == 0) {
        lvd_sb_add(out, sb.buf, sb.len);
        *newest_ns = newest;
    }
    free(real);
    free(pin);
    lvd_sb_free(&sb);
    return rc;
}

/* One watched path and its stats; -1 when the path cannot be written so. */
static int watch(lvd_sb *out, const char *path, int64_t *newest_ns)
{
    if (strpbrk(path, "\t\n"))
        return -1;
    lvd_sb_addf(out, "%s\t", path);
    int rc = store_stamp_file(path, out, newest_ns);
    lvd_sb_addc(out, '\n');
    return rc;
}

int sel_cache_watch_list(store *s, lvd_sb *out, int64_t *newest_ns)
{
    lvd_engine *e;
    size_t n;
    lvd_err err;
    if (store_engine_list(s, &e, &n, &err) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        engine_fileset fs;
        rc = watch(out, e[i].dir, newest_ns);
        if (rc != 0 || engine_files_list(e[i].dir, &fs, &err) != 0)
            continue; /* a directory gone: watched as gone */
        for (size_t k = 0; rc == 0 && k < fs.n_dirs; k++)
            rc = watch(out, fs.dirs[k], newest_ns);
        for (size_t k = 0; rc == 0 && k < fs.n; k++)
            rc = watch(out, fs.v[k].path, newest_ns);
        engine_fileset_free(&fs);
    }
    store_engine_list_free(e, n);
    return rc;
}

int sel_cache_watch_holds(const char *list, size_t len)
{
    lvd_sb now = {0};
    const char *p = list, *end = list + len;
    int holds = 1;
    while (holds && p < end) {
        const char *tab = memchr(p, '\t', (size_t)(end - p)), *nl = memchr(p, '\n', (size_t)(end - p));
        if (!tab || !nl || tab > nl)
            break;
        char *path = lvd_xstrndup(p, (size_t)(tab - p));
        lvd_sb_reset(&now);
        holds = store_stamp_file(path, &now, NULL) == 0 && now.len == (size_t)(nl - tab - 1) &&
                !memcmp(now.buf, tab + 1, now.len);
        free(path);
        p = nl + 1;
    }
    lvd_sb_free(&now);
    return holds && p == end;
}
