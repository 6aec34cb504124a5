/* cache.c: lvd select's answer cache file (see cache.h): where it is, its
 * format, the hit (check and replay) and the keeping of a miss's answer.
 * Not for what the key holds (cache_key.c).
 *
 * A file is text framed by lengths, checked whole:
 *   lvd-select-answer 1\n
 *   R LEN\n<request>  S LEN\n<state>  W LEN\n<watch list>
 *   X CODE\n  O LEN\n<stdout>  E LEN\n<stderr>
 *   C HEX\n   (FNV-1a 64 of every byte before the C line) */
#include "select/cache.h"

#include "common/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "lvd-select-answer 1\n"
#define MAX_FILE ((size_t)4 << 20)

struct sel_cache_miss {
    sel_cache_ask ask;   /* the caller's, alive until sel_cache_keep */
    char *request, *path;
    lvd_sb state, watch;
    int watched;      /* the watch list was taken, every file in it older than t0 */
    int64_t t0;       /* the coarse clock when the selection began */
};

static uint64_t fnv(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static int disabled(const sel_cache_ask *a)
{
    const char *v = getenv("LVD_SELECT_CACHE");
    return (v && !strcmp(v, "off")) || store_is_remote(a->store);
}

/* STORE-select/HASH of the request. malloc'd. */
static char *file_of(const sel_cache_ask *a, const char *request)
{
    return lvd_xasprintf("%s-select/%016llx", a->store, (unsigned long long)fnv(request, strlen(request)));
}

/* --- reading ------------------------------------------------------------ */

typedef struct field {
    const char *p;
    size_t n;
} field;

/* Reads "TAG LEN\n<LEN bytes>" (or "TAG NUM\n" when body is NULL) at *at. */
static int take(const char **at, const char *end, char tag, field *body, long long *num)
{
    const char *p = *at;
    if (end - p < 3 || p[0] != tag || p[1] != ' ')
        return -1;
    char *stop;
    long long v = strtoll(p + 2, &stop, 10);
    if (stop == p + 2 || stop >= end || *stop != '\n' || v < 0)
        return -1;
    p = stop + 1;
    if (body) {
        if ((long long)(end - p) < v)
            return -1;
        *body = (field){p, (size_t)v};
        p += v;
    }
    if (num)
        *num = v;
    *at = p;
    return 0;
}

typedef struct answer {
    field request, state, watch, out, err;
    long long code;
} answer;

/* Parses and checks a whole file into x (pointing into text). */
static int parse(const lvd_sb *text, answer *x)
{
    const char *p = text->buf, *end = text->buf + text->len;
    size_t magic = strlen(MAGIC);
    if (text->len < magic + 20 || memcmp(p, MAGIC, magic) != 0)
        return -1;
    const char *sum = end - 19; /* "C " 16 hex digits "\n" */
    char want[20];
    snprintf(want, sizeof want, "C %016llx\n", (unsigned long long)fnv(p, (size_t)(sum - p)));
    if (memcmp(sum, want, 19) != 0)
        return -1;
    p += magic;
    if (take(&p, sum, 'R', &x->request, NULL) || take(&p, sum, 'S', &x->state, NULL) ||
        take(&p, sum, 'W', &x->watch, NULL) || take(&p, sum, 'X', NULL, &x->code) ||
        take(&p, sum, 'O', &x->out, NULL) || take(&p, sum, 'E', &x->err, NULL))
        return -1;
    return p == sum && x->code <= 255 ? 0 : -1;
}

static int same(field f, const char *s, size_t n)
{
    return f.n == n && !memcmp(f.p, s, n);
}

/* Whether the kept file at path may answer: neither it nor its directory
 * writable by group or others, each owned by this user or by the store's
 * owner (a launch line is run by the service that asks for it). */
static int trusted(const char *path, const char *store)
{
    char *dir = lvd_xstrdup(path);
    *strrchr(dir, '/') = '\0';
    struct stat f, d, s;
    int ok = stat(path, &f) == 0 && stat(dir, &d) == 0 && stat(store, &s) == 0;
    uid_t me = geteuid();
    ok = ok && !(f.st_mode & 022) && !(d.st_mode & 022) && (f.st_uid == me || f.st_uid == s.st_uid) &&
         (d.st_uid == me || d.st_uid == s.st_uid);
    free(dir);
    return ok;
}

int sel_cache_serve(const sel_cache_ask *a)
{
    if (disabled(a))
        return -1;
    char *request = sel_cache_request(a);
    if (!request)
        return -1;
    char *path = file_of(a, request);
    lvd_sb text = {0}, state = {0};
    lvd_err err;
    answer x;
    int64_t newest;
    int code = -1;
    if (trusted(path, a->store) && lvd_read_file(path, MAX_FILE, &text, &err) == 0 && parse(&text, &x) == 0 &&
        same(x.request, request, strlen(request)) && sel_cache_state(a, &state, &newest) == 0 &&
        same(x.state, state.buf, state.len) && sel_cache_watch_holds(x.watch.p, x.watch.n)) {
        fwrite(x.err.p, 1, x.err.n, stderr);
        fwrite(x.out.p, 1, x.out.n, stdout);
        code = (int)x.code;
    }
    lvd_sb_free(&state);
    lvd_sb_free(&text);
    free(path);
    free(request);
    return code;
}

/* --- keeping ------------------------------------------------------------ */

static int64_t coarse_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME_COARSE, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

sel_cache_miss *sel_cache_begin(const sel_cache_ask *a, int settle)
{
    if (disabled(a))
        return NULL;
    sel_cache_miss *m = lvd_xcalloc(1, sizeof *m);
    m->ask = *a;
    int64_t newest = 0;
    for (int waited = 0;; waited++) {
        lvd_sb_reset(&m->state);
        int64_t now = coarse_now_ns(); /* before the stats: a change after them is in a later tick */
        if (sel_cache_state(a, &m->state, &newest) != 0)
            break;
        if (newest < now) {
            m->t0 = now;
            m->request = sel_cache_request(a);
            if (!m->request)
                break;
            m->path = file_of(a, m->request);
            return m;
        }
        if (!settle || waited == 50)
            break;
        usleep(1000);
    }
    lvd_sb_free(&m->state);
    free(m);
    return NULL;
}

void sel_cache_watch(sel_cache_miss *m, store *s)
{
    if (!m)
        return;
    int64_t newest = 0;
    /* listed after the selection checked them: a file changed since the
     * selection began has a timestamp of t0 or later, and is not kept */
    m->watched = sel_cache_watch_list(s, &m->watch, &newest) == 0 && newest < m->t0;
}

static void miss_free(sel_cache_miss *m)
{
    lvd_sb_free(&m->state);
    lvd_sb_free(&m->watch);
    free(m->request);
    free(m->path);
    free(m);
}

/* Writes the file atomically; errors are dropped (cache.h). */
static void write_answer(const sel_cache_miss *m, int exit_code, const lvd_sb *out, const lvd_sb *err)
{
    lvd_sb f = {0};
    lvd_err e;
    lvd_sb_adds(&f, MAGIC);
    lvd_sb_addf(&f, "R %zu\n%s", strlen(m->request), m->request);
    lvd_sb_addf(&f, "S %zu\n", m->state.len);
    lvd_sb_add(&f, m->state.buf, m->state.len);
    lvd_sb_addf(&f, "W %zu\n", m->watch.len);
    lvd_sb_add(&f, m->watch.buf, m->watch.len);
    lvd_sb_addf(&f, "X %d\nO %zu\n", exit_code, out->len);
    lvd_sb_add(&f, out->buf, out->len);
    lvd_sb_addf(&f, "E %zu\n", err->len);
    lvd_sb_add(&f, err->buf, err->len);
    lvd_sb_addf(&f, "C %016llx\n", (unsigned long long)fnv(f.buf, f.len));
    if (lvd_mkdir_parent(m->path, &e) == 0)
        (void)lvd_write_file_replace(m->path, f.buf, f.len, 0, &e); /* checked whole: no fsync */
    lvd_sb_free(&f);
}

void sel_cache_keep(sel_cache_miss *m, int exit_code, const lvd_sb *out, const lvd_sb *err)
{
    if (!m)
        return;
    lvd_sb now = {0};
    int64_t newest;
    /* the stamp again, after the store was closed: a commit in between (ours
     * or another process's) moved it, and the answer may predate it */
    if (exit_code == LVD_EXIT_OK && m->watched && sel_cache_state(&m->ask, &now, &newest) == 0 &&
        now.len == m->state.len && !memcmp(now.buf, m->state.buf, now.len))
        write_answer(m, exit_code, out, err);
    lvd_sb_free(&now);
    miss_free(m);
}
