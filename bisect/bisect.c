/* bisect.c: the hunt (bisect/bisect.h): candidates, resume from the store,
 * the search loop, the result and the clean-up. Not for one step's fetch and
 * bench (bisect/step.c) or the search rule (bisect/search.c). */
#include "bisect/bisect.h"

#include "bench/invoke.h"
#include "bisect/search.h"
#include "bisect/step.h"
#include "builds/asset.h"
#include "builds/names.h"
#include "common/cli.h"
#include "common/gguf_split.h"
#include "fetch/fetch.h"
#include "store/identify.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <strings.h>

typedef struct hunt {
    const bisect_opts *o;
    bisect_env e;
    bisect_result *res;
    store_bisect rec;
    char **tags;
    size_t n;
    bisect_mark *mark;
    char **fetched_dirs;      /* bench dirs this run downloaded (removed unless keep) */
    size_t n_dirs;
    int64_t *fetched_ids;     /* their engines (retired at the end) */
    size_t n_ids;
    int64_t good_id, bad_id;
    char *commits[3];         /* good, the step's, bad: as llama-bench reported them */
} hunt;

/* "DEVICE[,fa=on|off][,ngl=N]" into the environment's arm. */
static int parse_arm(const char *spec, bisect_env *e, char **device, lvd_err *err)
{
    e->fa = 1;
    e->ngl = -1;
    *device = NULL;
    size_t n = 0;
    int64_t ngl;
    char **w = spec ? lvd_split(spec, ',', &n) : NULL;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!strcmp(w[i], "fa=on") || !strcmp(w[i], "fa=off"))
            e->fa = !strcmp(w[i], "fa=on");
        else if (!strncmp(w[i], "ngl=", 4) && lvd_parse_i64(w[i] + 4, &ngl) == 0 && ngl >= 0 && ngl < 1000)
            e->ngl = (int)ngl;
        else if (i == 0 && !strchr(w[i], '='))
            *device = lvd_xstrdup(w[i]);
        else
            rc = lvd_errf(err, "--arm: '%s' is not DEVICE, fa=on|off or ngl=N", w[i]);
    }
    lvd_strv_free(w);
    e->device = *device;
    return rc;
}

static size_t tag_index(const hunt *h, const char *build)
{
    for (size_t i = 0; i < h->n; i++)
        if (!strcmp(h->tags[i], build))
            return i;
    return BISECT_NONE;
}

static void note(const hunt *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const hunt *h, const char *fmt, ...)
{
    if (!h->o->notes)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("lvd-bisect: ", h->o->notes);
    vfprintf(h->o->notes, fmt, ap);
    fputc('\n', h->o->notes);
    va_end(ap);
}

static void add_step(hunt *h, const store_bisect_step *x)
{
    bisect_result *r = h->res;
    r->steps = lvd_xrealloc(r->steps, (r->n_steps + 1) * sizeof *r->steps);
    store_bisect_step *c = &r->steps[r->n_steps++];
    *c = *x;
    char **f[] = {&c->build, &c->verdict, &c->reason, &c->commit, &c->session};
    for (int i = 0; i < 5; i++)
        *f[i] = *f[i] ? lvd_xstrdup(*f[i]) : NULL;
}

/* Steps already decided by an earlier run of this hunt. */
static int resume(hunt *h, lvd_err *err)
{
    store_bisect_step *v;
    size_t n;
    if (store_bisect_steps(h->e.s, h->rec.id, &v, &n, err))
        return -1;
    for (size_t i = 0; i < n; i++) {
        size_t k = tag_index(h, v[i].build);
        if (k == BISECT_NONE)
            continue;
        if (k == 0 || k + 1 == h->n) { /* the endpoints' own rows: commits, their ratio */
            char **c = &h->commits[k ? 2 : 0];
            if (!*c && v[i].commit)
                *c = lvd_xstrdup(v[i].commit);
            continue;
        }
        h->mark[k] = bisect_mark_parse(v[i].verdict);
        add_step(h, &v[i]);
        h->res->resumed++;
    }
    store_bisect_steps_free(v, n);
    if (h->res->resumed)
        note(h, "resuming: %zu step(s) from the store", h->res->resumed);
    return 0;
}

static void keep_dir(hunt *h, const bisect_fetched *f)
{
    if (f->downloaded)
        h->res->downloads++;
    if (f->downloaded && f->bench_dir)
        lvd_strv_push(&h->fetched_dirs, &h->n_dirs, lvd_xstrdup(f->bench_dir));
    if (f->downloaded && f->engine_id) {
        h->fetched_ids = lvd_xrealloc(h->fetched_ids, (h->n_ids + 1) * sizeof *h->fetched_ids);
        h->fetched_ids[h->n_ids++] = f->engine_id;
    }
}

/* Fetches good or bad; a hunt cannot go on without them. */
static int endpoint(hunt *h, const char *build, int64_t *id, char **commit, int *code, lvd_err *err)
{
    bisect_fetched f;
    char *reason = NULL;
    int rc = bisect_fetch(&h->e, build, &f, &reason, code, err);
    if (rc == 1) {
        lvd_errf(err, "%s: %s", build, reason);
        *code = *code == LVD_EXIT_OK ? LVD_EXIT_VERIFY : *code;
    }
    free(reason);
    if (rc == 0) {
        *id = f.engine_id;
        *commit = f.commit ? lvd_xstrdup(f.commit) : NULL;
        if (f.downloaded)
            h->res->downloads++;
    }
    bisect_fetched_free(&f);
    return rc ? -1 : 0;
}

/* One step on candidate k: fetch, measure, record. 0, 1 (not reproduced), -1. */
static int step(hunt *h, size_t k, int *code, lvd_err *err)
{
    store_bisect_step x = {.build = h->tags[k], .vs_good = NAN, .vs_good_lo = NAN, .vs_good_hi = NAN,
                           .vs_bad = NAN, .vs_bad_lo = NAN, .vs_bad_hi = NAN};
    bisect_fetched f;
    char *reason = NULL;
    note(h, "step: %s (%zu of %zu between %s and %s)", h->tags[k], k, h->n - 2, h->tags[0],
         h->tags[h->n - 1]);
    int rc = bisect_fetch(&h->e, h->tags[k], &f, &reason, code, err);
    if (rc < 0)
        return -1;
    keep_dir(h, &f);
    x.downloaded = f.downloaded;
    x.commit = f.commit;
    double ends[3] = {NAN, NAN, NAN};
    char *session = lvd_xasprintf(STORE_HUNT_SESSION_PREFIX "%lld-%s", (long long)h->rec.id, h->tags[k]);
    if (rc == 1) {
        x.verdict = lvd_xstrdup("skip");
        x.reason = reason;
        reason = NULL;
    } else {
        x.session = session;
        free(h->commits[1]);
        h->commits[1] = f.commit ? lvd_xstrdup(f.commit) : NULL;
        if (bisect_measure(&h->e, h->good_id, f.engine_id, h->bad_id, session, &x, ends, h->commits, err)) {
            *code = LVD_EXIT_STORE;
            rc = -1;
        }
    }
    if (rc == 0 && !x.commit)
        x.commit = h->commits[1];
    if (rc >= 0 && x.verdict) {
        h->mark[k] = bisect_mark_parse(x.verdict);
        note(h, "%s: %s (%s)", h->tags[k], x.verdict, x.reason);
        rc = store_bisect_step_put(h->e.s, h->rec.id, &x, err) ? -1 : 0;
        if (rc == 0 && isfinite(ends[0])) { /* the endpoints' ratio, newest session */
            store_bisect_step e = {.build = h->tags[h->n - 1], .verdict = "bad", .session = session,
                                   .reason = "the bad build against the good one", .commit = h->commits[2],
                                   .vs_good = ends[0], .vs_good_lo = ends[1], .vs_good_hi = ends[2],
                                   .vs_bad = NAN, .vs_bad_lo = NAN, .vs_bad_hi = NAN};
            store_bisect_step g = {.build = h->tags[0], .verdict = "good", .session = session,
                                   .reason = "the good build", .commit = h->commits[0], .vs_good = NAN,
                                   .vs_good_lo = NAN, .vs_good_hi = NAN, .vs_bad = NAN, .vs_bad_lo = NAN,
                                   .vs_bad_hi = NAN};
            rc = store_bisect_step_put(h->e.s, h->rec.id, &e, err) || store_bisect_step_put(h->e.s, h->rec.id, &g, err)
                     ? -1
                     : 0;
            if (rc == 0 && !(ends[2] < 1.0)) {
                lvd_errf(err, "%s is not slower than %s on %s here (ratio %.3f [%.3f, %.3f]): nothing to hunt",
                         h->tags[h->n - 1], h->tags[0], h->e.test.name, ends[0], ends[1], ends[2]);
                rc = 1;
            }
        }
        if (rc == -1)
            *code = LVD_EXIT_STORE;
        else
            add_step(h, &x);
    }
    free(x.verdict);
    free(x.reason);
    free(reason);
    free(session);
    bisect_fetched_free(&f);
    return rc;
}

static const store_bisect_step *step_of(const hunt *h, const char *build)
{
    for (size_t i = h->res->n_steps; i-- > 0;)
        if (!strcmp(h->res->steps[i].build, build))
            return &h->res->steps[i];
    return NULL;
}

/* The boundary, its commits, the compare link and the first bad's ratio. */
static void conclude(hunt *h, const char *good_commit, const char *bad_commit, lvd_err *err)
{
    bisect_result *r = h->res;
    size_t lo, hi;
    bisect_interval(h->mark, h->n, &lo, &hi);
    for (size_t i = lo + 1; i < hi; i++)
        lvd_strv_push(&r->between, &r->n_between, lvd_xstrdup(h->tags[i]));
    r->ratio = r->ci_lo = r->ci_hi = NAN;
    if (r->n_between)
        return; /* only skipped builds between: the first bad is one of them or hi */
    r->last_good = lvd_xstrdup(h->tags[lo]);
    r->first_bad = lvd_xstrdup(h->tags[hi]);
    const store_bisect_step *g = lo ? step_of(h, h->tags[lo]) : NULL;
    const store_bisect_step *b = hi + 1 < h->n ? step_of(h, h->tags[hi]) : NULL;
    const char *gc = lo ? (g ? g->commit : NULL) : good_commit;
    const char *bc = hi + 1 < h->n ? (b ? b->commit : NULL) : bad_commit;
    r->good_commit = gc ? lvd_xstrdup(gc) : NULL;
    r->bad_commit = bc ? lvd_xstrdup(bc) : NULL;
    r->compare_url = lvd_xasprintf("%s/%s...%s", BISECT_COMPARE_URL, r->last_good, r->first_bad);
    if (b) {
        r->ratio = b->vs_good, r->ci_lo = b->vs_good_lo, r->ci_hi = b->vs_good_hi;
    } else {
        store_bisect_step *v;
        size_t n;
        if (store_bisect_steps(h->e.s, h->rec.id, &v, &n, err) == 0) {
            for (size_t i = 0; i < n; i++)
                if (!strcmp(v[i].build, h->tags[h->n - 1]))
                    r->ratio = v[i].vs_good, r->ci_lo = v[i].vs_good_lo, r->ci_hi = v[i].vs_good_hi;
            store_bisect_steps_free(v, n);
        }
    }
}

/* The midpoints this run downloaded: their bench dirs removed (unless keep)
 * and their engines retired either way, so that nothing else measures them
 * (lvd fetch BUILD registers one again). */
static void clean_up(hunt *h)
{
    for (size_t i = 0; i < h->n_dirs && !h->o->keep; i++)
        if (lvd_rm_rf(h->fetched_dirs[i]) == 0)
            note(h, "removed %s", h->fetched_dirs[i]);
    lvd_err err = {0};
    for (size_t i = 0; i < h->n_ids && h->e.s; i++)
        if (store_engine_retire(h->e.s, h->fetched_ids[i], &err))
            note(h, "%s", err.msg);
}

/* --good and --bad as builds (ro's, from h->o's): a SemVer release
 * (v0.4.1) is the build its nightly-tag.txt names (fetch_release_semver),
 * said in a note; builds[] holds what was resolved. A name that is neither
 * is left for setup to refuse. */
static int by_build(const hunt *h, bisect_opts *ro, char *builds[2], int *code, lvd_err *err)
{
    const char **ends[2] = {&ro->good, &ro->bad};
    for (int i = 0; i < 2; i++) {
        if (!builds_semver_valid(*ends[i]))
            continue;
        char *api = ro->api_base ? lvd_xstrdup(ro->api_base) : fetch_api_base();
        fetch_api_status st;
        lvd_err why = {""};
        int rc = fetch_release_semver(api, *ends[i], &builds[i], &st, &why);
        free(api);
        if (rc) {
            *code = st == FETCH_API_OK ? LVD_EXIT_VERIFY : LVD_EXIT_NETWORK;
            return lvd_errf(err, "%s: %s", *ends[i], why.msg);
        }
        note(h, "%s is build %s (the build its %s names)", *ends[i], builds[i], BUILDS_NIGHTLY_TAG_ASSET);
        *ends[i] = builds[i];
    }
    return 0;
}

/* Validates the options and fills the hunt's environment. */
static int setup(hunt *h, char **device, bench_test **tests, int *code, lvd_err *err)
{
    const bisect_opts *o = h->o;
    *code = LVD_EXIT_USAGE;
    if (!builds_valid(o->good) || !builds_valid(o->bad))
        return lvd_errf(err, "--good and --bad must be release builds bNNNN or releases vX.Y.Z (got '%s', '%s')",
                        o->good, o->bad);
    if (builds_number(o->good) >= builds_number(o->bad))
        return lvd_errf(err, "--good %s must be older than --bad %s", o->good, o->bad);
    const char *fl = builds_flavour_canonical(o->flavour ? o->flavour : FETCH_DEFAULT_FLAVOUR);
    if (!fl)
        return lvd_errf(err, "--flavour %s: not a known flavour", o->flavour);
    size_t nt = 0;
    if (bench_tests_parse(o->test ? o->test : "tg128", tests, &nt, err))
        return -1;
    if (nt != 1)
        return lvd_errf(err, "--test: one test (tg128 or pp512), got %zu", nt);
    if (parse_arm(o->arm, &h->e, device, err))
        return -1;
    h->e.test = (*tests)[0];
    h->e.flavour = fl;
    h->e.builds_dir = o->builds_dir;
    h->e.api_base = o->api_base;
    h->e.download_base = o->download_base;
    h->e.notes = o->notes;
    h->e.host = lvd_hostname();
    *code = LVD_EXIT_OK;
    return 0;
}

/* Opens the store, identifies the model and opens (or resumes) the hunt's record. */
static int open_record(hunt *h, store_artifact *art, char **model, int *code, lvd_err *err)
{
    const bisect_opts *o = h->o;
    *code = LVD_EXIT_STORE;
    char *path = store_default_path(o->store_path);
    int rc = store_open(path, STORE_OPEN_CREATE, &h->e.s, err);
    h->e.store_path = path;
    if (rc)
        return -1;
    if (store_identify(h->e.s, o->model, 0, art, NULL, err)) {
        *code = LVD_EXIT_INPUT;
        return -1;
    }
    *model = gguf_split_first(o->model);
    h->e.model = *model;
    h->e.artifact = art->sha256;
    h->rec.host = (char *)h->e.host;
    h->rec.artifact = art->sha256;
    h->rec.flavour = (char *)h->e.flavour;
    h->rec.test = h->e.test.name;
    h->rec.arm = o->arm ? (char *)o->arm : "";
    h->rec.good = (char *)o->good;
    h->rec.bad = (char *)o->bad;
    h->rec.key = lvd_xasprintf("%s|%s|%s|%s|%s|%s|%s", h->rec.host, h->rec.artifact, h->rec.flavour,
                               h->rec.test, h->rec.arm, h->rec.good, h->rec.bad);
    int resumed;
    if (store_bisect_open(h->e.s, &h->rec, &resumed, err))
        return -1;
    h->res->bisect_id = h->rec.id;
    *code = LVD_EXIT_OK;
    return 0;
}

/* The search loop over the candidates. An exit code. */
static int search(hunt *h, lvd_err *err)
{
    int code = LVD_EXIT_OK;
    for (size_t k; (k = bisect_next(h->mark, h->n)) != BISECT_NONE;) {
        int rc = step(h, k, &code, err);
        if (rc < 0)
            return code == LVD_EXIT_OK ? LVD_EXIT_FAIL : code;
        if (rc == 1)
            return LVD_EXIT_FAIL;
    }
    return LVD_EXIT_OK;
}

static int finish(hunt *h, const char *gc, const char *bc, lvd_err *err)
{
    conclude(h, gc, bc, err);
    cJSON *j = bisect_result_json(h->res);
    char *text = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    int rc = store_bisect_finish(h->e.s, h->rec.id, h->res->last_good, h->res->first_bad, text, err);
    free(text);
    if (rc)
        return LVD_EXIT_STORE;
    if (!h->res->first_bad) {
        lvd_errf(err, "no boundary: the first bad build is one of the skipped %s ... %s, or the one after",
                 h->res->between[0], h->res->between[h->res->n_between - 1]);
        return LVD_EXIT_FAIL;
    }
    return LVD_EXIT_OK;
}

int bisect_run(const bisect_opts *o, bisect_result *res, lvd_err *err)
{
    memset(res, 0, sizeof *res);
    res->ratio = res->ci_lo = res->ci_hi = NAN;
    res->good = lvd_xstrdup(o->good);
    res->bad = lvd_xstrdup(o->bad);
    bisect_opts ro = *o; /* with --good and --bad as builds */
    hunt h = {.o = &ro, .res = res};
    char *device = NULL, *model = NULL, *api = NULL, *gc = NULL, *bc = NULL, *named[2] = {NULL, NULL};
    bench_test *tests = NULL;
    store_artifact art;
    memset(&art, 0, sizeof art);
    int code;
    o = &ro;
    if (by_build(&h, &ro, named, &code, err) || setup(&h, &device, &tests, &code, err) ||
        open_record(&h, &art, &model, &code, err))
        goto out;
    res->test = lvd_xstrdup(h.e.test.name);
    res->flavour = lvd_xstrdup(h.e.flavour);
    api = o->api_base ? lvd_xstrdup(o->api_base) : fetch_api_base();
    if (bisect_candidates(api, o->good, o->bad, h.e.flavour, BISECT_PER_PAGE, &h.tags, &h.n, &code, err))
        goto out;
    res->n_candidates = h.n - 2;
    h.mark = lvd_xcalloc(h.n, sizeof *h.mark);
    size_t steps = bisect_max_steps(h.n) + 1;
    h.e.step_budget_ms = o->budget_s > 0 ? o->budget_s * 1000 / (int64_t)steps : 0;
    note(&h, "%zu build(s) between %s and %s publish %s: at most %zu steps", res->n_candidates, o->good,
         o->bad, h.e.flavour, steps - 1);
    code = LVD_EXIT_STORE;
    if (resume(&h, err))
        goto out;
    if (endpoint(&h, o->good, &h.good_id, &gc, &code, err) || endpoint(&h, o->bad, &h.bad_id, &bc, &code, err))
        goto out;
    code = search(&h, err);
    if (code == LVD_EXIT_OK)
        code = finish(&h, gc ? gc : h.commits[0], bc ? bc : h.commits[2], err);
out:
    clean_up(&h);
    free(device);
    free(model);
    free(api);
    free(gc);
    free(bc);
    free(named[0]);
    free(named[1]);
    free(tests);
    free(h.mark);
    lvd_strv_free(h.tags);
    lvd_strv_free(h.fetched_dirs);
    free(h.fetched_ids);
    free(h.rec.key);
    for (int k = 0; k < 3; k++)
        free(h.commits[k]);
    free((char *)h.e.store_path);
    store_artifact_free(&art);
    store_close(h.e.s);
    return code;
}

void bisect_result_free(bisect_result *r)
{
    if (!r)
        return;
    char *f[] = {r->good, r->bad, r->last_good, r->first_bad, r->good_commit, r->bad_commit,
                 r->compare_url, r->test, r->flavour};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        free(f[i]);
    lvd_strv_free(r->between);
    store_bisect_steps_free(r->steps, r->n_steps);
    memset(r, 0, sizeof *r);
}
