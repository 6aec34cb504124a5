/* load.c: the evidence page from the store (see model.h ev_page_load): per
 * model its runs into arms, the latest checks, the newest verdict, then the
 * pure computation (model.c), the verdict's or leader's placement and launch
 * line (select/choice.h, as lvd select prints them), and the pin history.
 * Only reads the store. Not for computing figures (model.c) nor rendering. */
#include "builds/older.h"
#include "evidence/fleet.h"
#include "evidence/model.h"
#include "evidence/window.h"

#include "select/choice.h"
#include "select/engines.h"
#include "store/identify.h"
#include "store/store.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* What the store knows about engines, fetched once per page. */
typedef struct engines {
    lvd_engine *v;
    size_t n;
    lvd_probe *probe;   /* latest probe per engine; probe[i].engine_id 0 = none */
} engines;

/* The page's registered engines older than the pin (builds/older.h). */
static void older_load(const engines *es, ev_page *out)
{
    char pin[64], msg[512];
    if (!builds_pin_default_resolved(es->v, es->n, pin, sizeof pin))
        return;
    for (size_t i = 0; i < es->n; i++)
        if (builds_local_older(&es->v[i], pin, msg, sizeof msg))
            lvd_strv_push(&out->older, &out->n_older, lvd_xstrdup(msg));
}

static int engines_load(store *s, engines *e, lvd_err *err)
{
    memset(e, 0, sizeof *e);
    if (store_engine_list(s, &e->v, &e->n, err) != 0)
        return -1;
    e->probe = lvd_xcalloc(e->n ? e->n : 1, sizeof *e->probe);
    for (size_t i = 0; i < e->n; i++) {
        int rc = store_probe_latest(s, e->v[i].id, &e->probe[i], err);
        if (rc < 0)
            return -1;
        if (rc == 1)
            memset(&e->probe[i], 0, sizeof e->probe[i]);
    }
    return 0;
}

static void engines_free(engines *e)
{
    for (size_t i = 0; i < e->n; i++)
        lvd_probe_free(&e->probe[i]);
    free(e->probe);
    store_engine_list_free(e->v, e->n);
}

static size_t engine_index(const engines *e, int64_t id);

/* The placement rows of the runs whose engine the estimator models: mainline
 * llama.cpp's (engine/family.h); ik_llama.cpp allocates by graphs of its own,
 * which its predictions were never fitted to (an engine no longer
 * registered is taken as mainline's, as engines were before families). */
static void alloc_build_modelled(ev_model *m, const engines *es, const lvd_run *runs, size_t nr)
{
    lvd_run *kept = lvd_xcalloc(nr ? nr : 1, sizeof *kept);
    size_t nk = 0;
    for (size_t i = 0; i < nr; i++) {
        size_t ei = engine_index(es, runs[i].engine_id);
        if (ei == SIZE_MAX || !strcmp(lvd_engine_family(&es->v[ei]), LVD_FAMILY_MAINLINE))
            kept[nk++] = runs[i]; /* shallow: the rows copy what they keep */
    }
    ev_alloc_build(m, kept, nk);
    free(kept);
}

static size_t engine_index(const engines *e, int64_t id)
{
    for (size_t i = 0; i < e->n; i++)
        if (e->v[i].id == id)
            return i;
    return SIZE_MAX;
}

static const lvd_probe *engine_probe(const engines *e, size_t i)
{
    return i != SIZE_MAX && e->probe[i].engine_id ? &e->probe[i] : NULL;
}

/* A string field of the first result's reported JSON that has it. */
static char *reported_field(const lvd_run *runs, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < runs[i].n_results; k++) {
            cJSON *j = runs[i].results[k].reported_json ? cJSON_Parse(runs[i].results[k].reported_json) : NULL;
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
            char *out = NULL;
            if (cJSON_IsString(v) && *v->valuestring)
                out = lvd_xstrdup(v->valuestring);
            else if (cJSON_IsNumber(v))
                out = lvd_xasprintf("%.0f", v->valuedouble);
            cJSON_Delete(j);
            if (out)
                return out;
        }
    }
    return NULL;
}

static void describe_model(ev_model *m, const store_artifact *a, const lvd_run *runs, size_t n)
{
    char *file = reported_field(runs, n, "model_filename");
    char *type = reported_field(runs, n, "model_type");
    if (a && a->last_path)
        m->name = lvd_xstrdup(lvd_base_name(a->last_path));
    else if (file)
        m->name = lvd_xstrdup(lvd_base_name(file));
    else
        m->name = lvd_xasprintf("%.12s", m->sha256);
    lvd_sb sb = {0};
    if (a && a->shape.known)
        lvd_sb_addf(&sb, "%s %s, %u blocks%s", a->shape.arch, gguf_file_type_name(a->shape.file_type),
                    a->shape.n_block, a->shape.n_expert ? ", MoE" : "");
    else if (type)
        lvd_sb_adds(&sb, type);
    if (a && a->size > 1)
        lvd_sb_addf(&sb, "%s%.2f GB", sb.len ? ", " : "", (double)a->size / 1e9);
    m->desc = lvd_sb_detach(&sb);
    free(file);
    free(type);
}

/* "PPL ratio 1.0006, KLD 0.0012, same top 99.2 %". A KLD that four decimals
 * would show as 0.0000 (a correct device: the real Vulkan build on lavapipe
 * measures 0.000005) gets the six lvd check prints, so that the page does not
 * claim the device matched the CPU exactly (only the reference's own 0 does). */
static char *check_figures(const lvd_check *c)
{
    lvd_sb sb = {0};
    if (isfinite(c->ppl_ratio) && c->ppl_ratio > 0)
        lvd_sb_addf(&sb, "PPL ratio %.4f", c->ppl_ratio);
    if (isfinite(c->mean_kld))
        lvd_sb_addf(&sb, c->mean_kld > 0 && c->mean_kld < 0.00005 ? "%sKLD %.6f" : "%sKLD %.4f",
                    sb.len ? ", " : "", c->mean_kld);
    else if (strcmp(c->status, "base") && strcmp(c->status, "error") && sb.len)
        lvd_sb_adds(&sb, ", KLD not measured");
    if (isfinite(c->same_top_p) && c->same_top_p > 0)
        lvd_sb_addf(&sb, "%ssame top %.1f %%", sb.len ? ", " : "", c->same_top_p);
    if (c->reason && *c->reason && strcmp(c->status, "pass") && strcmp(c->status, "base"))
        lvd_sb_addf(&sb, "%s%s", sb.len ? "; " : "", c->reason);
    return lvd_sb_detach(&sb);
}

/* Placement and launch line of the choice (engine_id, arm_key, params) as
 * lvd select --record --artifact prints them: the same function
 * (sel_choice_lines_load); the page adds what llama-bench called the model
 * to the placeholder's note. 0, or -1 when the store failed. */
static int choice_lines(ev_model *m, store *s, const char *host, const store_artifact *a, int64_t engine_id,
                        const char *arm_key, const lvd_params *params, const lvd_run *runs, size_t nr, lvd_err *err)
{
    char *hint = reported_field(runs, nr, "model_filename");
    sel_choice_lines c;
    lvd_err lerr = {{0}};
    store_artifact stub = {.size = -1};
    if (!a) { /* runs of an artifact the store has no row for */
        snprintf(stub.sha256, sizeof stub.sha256, "%s", m->sha256);
        a = &stub;
    }
    int rc = sel_choice_lines_load(s, a, host, engine_id, arm_key, params, hint, &c, &lerr);
    free(hint);
    if (rc == -1) {
        *err = lerr;
        return -1;
    }
    if (rc == 0) {
        if (c.placement_known)
            m->placement = lvd_xstrdup(c.placement_line);
        else
            m->placement_unknown = lvd_xstrdup(c.placement_line);
        m->launch = c.launch_line ? lvd_xstrdup(c.launch_line) : NULL;
        m->launch_note = c.model_note && c.launch_line ? lvd_xstrdup(c.model_note) : NULL;
        sel_choice_lines_free(&c);
    }
    return 0;
}

/* The newest verdict for the model on host into *out; *has 0 when none. */
static int newest_verdict(store *s, const char *sha, const char *host, lvd_verdict *out, int *has, lvd_err *err)
{
    lvd_verdict *vs;
    size_t n;
    *has = 0;
    if (store_verdict_list(s, sha, host, 1, &vs, &n, err) != 0)
        return -1;
    if (n) {
        *out = vs[0];
        memset(&vs[0], 0, sizeof vs[0]);
        *has = 1;
    }
    store_verdict_list_free(vs, n);
    return 0;
}

/* The verdict's fields, then placement and launch for the verdict's choice
 * or, with no verdict, the measured leader's. 0, or -1 (store; err). */
static int describe_choice(ev_model *m, store *s, const char *host, const lvd_verdict *v,
                           const store_artifact *a, const lvd_run *runs, size_t nr, const engines *es, lvd_err *err)
{
    int64_t engine_id;
    const char *arm_key;
    const lvd_params *params;
    if (v) {
        m->has_verdict = 1;
        m->verdict_rule = lvd_xstrdup(v->rule ? v->rule : "?");
        m->verdict_explain = v->explain && *v->explain ? lvd_xstrdup(v->explain) : NULL;
        ev_datetime(v->decided_at, m->verdict_date);
        for (size_t i = 0; i < m->n_arms && !m->verdict_arm; i++)
            if (m->arms[i].is_verdict)
                m->verdict_arm = lvd_xstrdup(m->arms[i].label);
        for (size_t i = 0; i < m->n_serve && !m->verdict_arm; i++) /* a serve verdict's arm */
            for (size_t k = 0; k < m->serve[i].n_pts && !m->verdict_arm; k++)
                if (m->serve[i].pts[k].is_verdict)
                    m->verdict_arm = lvd_xasprintf("%s, np %d", m->serve[i].label, m->serve[i].pts[k].clients);
        if (!m->verdict_arm) {
            size_t ei = engine_index(es, v->engine_id);
            char *brief = sel_params_brief(&v->params);
            m->verdict_arm = v->engine_id ? lvd_xasprintf("%s (%s; not among the arms measured on this host)",
                                                          ei != SIZE_MAX ? es->v[ei].name : "an engine no longer registered",
                                                          brief)
                                          : lvd_xstrdup("no arm");
            free(brief);
        }
        if (!v->engine_id)
            return 0;
        engine_id = v->engine_id;
        arm_key = v->arm_key;
        params = &v->params;
    } else if (m->n_arms && m->arms[0].rank == 1) {
        m->launch_of_leader = 1;
        engine_id = m->arms[0].engine_id;
        arm_key = m->arms[0].arm_key;
        params = &m->arms[0].run_params;
    } else {
        return 0;
    }
    return choice_lines(m, s, host, a, engine_id, arm_key, params, runs, nr, err);
}

/* One arm as ev_model_compute takes it: label, engine, its device's latest
 * check (*check zeroed when none; *text its figures). 0 or -1 (store). */
static int arm_input(store *s, const char *sha, const char *host, const engines *es, const sel_arm *arm,
                     const lvd_verdict *v, ev_arm_in *in, char *backend, lvd_check *check, char **text, lvd_err *err)
{
    size_t ei = engine_index(es, arm->engine_id);
    sel_backend_label(engine_probe(es, ei), arm->backends, backend, 16);
    in->arm = arm;
    in->backend = backend;
    in->engine = ei != SIZE_MAX ? es->v[ei].name : NULL;
    in->build = ei != SIZE_MAX ? es->v[ei].build : NULL;
    in->semver = ei != SIZE_MAX ? es->v[ei].semver : NULL;
    in->family = ei != SIZE_MAX ? es->v[ei].family : NULL;
    in->is_verdict = v && v->engine_id == arm->engine_id && v->arm_key && !strcmp(v->arm_key, arm->arm_key);
    char dev[64];
    engine_check_device(engine_probe(es, ei), &arm->params, dev, sizeof dev);
    int c = store_check_latest(s, sha, host, arm->engine_id, dev, check, err);
    if (c < 0)
        return -1;
    if (c == 1)
        memset(check, 0, sizeof *check);
    if (c == 0) {
        in->check_status = check->status;
        *text = check_figures(check);
        in->check_text = *text;
    }
    return 0;
}

/* Moves the serving arms (lvd serve's: params.parallel > 0) of set to its
 * end, keeping each side's order; returns how many arms come before them. */
static size_t bench_arms_first(sel_armset *set)
{
    sel_arm *v = lvd_xmalloc((set->n ? set->n : 1) * sizeof *v);
    size_t nb = 0, k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < set->n; i++)
            if ((set->v[i].params.parallel > 0) == pass)
                v[k++] = set->v[i];
    for (size_t i = 0; i < set->n; i++)
        nb += set->v[i].params.parallel == 0;
    memcpy(set->v, v, set->n * sizeof *v);
    free(v);
    return nb;
}

/* The serving section of m from the serving arms a[0..n). */
static void serving_load(ev_model *m, const engines *es, const sel_arm *a, size_t n, const lvd_verdict *v)
{
    ev_serve_in *in = lvd_xcalloc(n ? n : 1, sizeof *in);
    char(*backend)[16] = lvd_xcalloc(n ? n : 1, sizeof *backend);
    for (size_t i = 0; i < n; i++) {
        size_t ei = engine_index(es, a[i].engine_id);
        sel_backend_label(engine_probe(es, ei), a[i].backends, backend[i], sizeof backend[i]);
        in[i] = (ev_serve_in){.arm = &a[i], .backend = backend[i], .engine = ei != SIZE_MAX ? es->v[ei].name : NULL,
                              .is_verdict = v && v->engine_id == a[i].engine_id && v->arm_key &&
                                            !strcmp(v->arm_key, a[i].arm_key)};
    }
    ev_serve_build(m, in, n);
    free(in);
    free(backend);
}

/* One model: its runs[0..nr) (the page's nights of it, oldest first, with
 * samples) into arms, checks, verdict, figures and history. */
static int load_model(store *s, const ev_opts *o, const char *host, const char *sha, const engines *es,
                      const lvd_run *runs, size_t nr, ev_model *m, int64_t *t_min, int64_t *t_max, lvd_err *err)
{
    memset(m, 0, sizeof *m);
    snprintf(m->sha256, sizeof m->sha256, "%s", sha);
    store_artifact a;
    int has_a = store_artifact_get(s, sha, &a, err);
    if (has_a < 0)
        return -1;
    const store_artifact *ap = has_a == 0 ? &a : NULL;
    lvd_verdict v;
    int has_v = 0;
    sel_armset set = {0};
    ev_arm_in *in = NULL;
    lvd_check *checks = NULL;
    char **texts = NULL;
    char(*backend)[16] = NULL;
    size_t nb = 0;
    int rc = newest_verdict(s, sha, host, &v, &has_v, err);
    if (rc != 0)
        goto out;
    for (size_t i = 0; i < nr; i++) {
        if (!*t_min || runs[i].started_at < *t_min)
            *t_min = runs[i].started_at;
        if (runs[i].started_at > *t_max)
            *t_max = runs[i].started_at;
    }
    describe_model(m, ap, runs, nr);
    sel_armset_build(runs, nr, &set);
    nb = bench_arms_first(&set); /* llama-bench's arms; lvd serve's after them */
    size_t cap = set.n ? set.n : 1;
    in = lvd_xcalloc(cap, sizeof *in);
    backend = lvd_xcalloc(cap, sizeof *backend);
    checks = lvd_xcalloc(cap, sizeof *checks);
    texts = lvd_xcalloc(cap, sizeof *texts);
    for (size_t i = 0; i < nb && rc == 0; i++) {
        rc = arm_input(s, sha, host, es, &set.v[i], has_v ? &v : NULL, &in[i], backend[i], &checks[i], &texts[i],
                       err);
    }
    if (rc != 0)
        goto out;
    rc = ev_model_compute(m, in, nb, has_v ? v.objective : NULL, err);
    if (rc == 0) {
        ev_depth_build(m, in, nb);
        serving_load(m, es, set.v + nb, set.n - nb, has_v ? &v : NULL);
    }
    if (rc == 0) {
        ev_history_build(m, runs, nr, o->nights ? o->nights : EV_NIGHTS_DEFAULT);
        alloc_build_modelled(m, es, runs, nr);
        rc = ev_ceilings_load(s, host, ap, es->v, es->probe, es->n, m, err);
        if (rc == 0)
            rc = store_fit_plan_list(s, sha, &m->fit_plans, &m->n_fit_plans, err);
    }
    if (rc == 0) {
        rc = describe_choice(m, s, host, has_v ? &v : NULL, ap, runs, nr, es, err);
    }
out:
    for (size_t i = 0; checks && i < nb; i++) {
        lvd_check_free(&checks[i]);
        free(texts[i]);
    }
    free(checks);
    free(texts);
    free(backend);
    free(in);
    if (has_v)
        lvd_verdict_free(&v);
    sel_armset_free(&set);
    if (ap)
        store_artifact_free(&a);
    return rc;
}

/* Every model's section from the window w. */
static int load_models(store *s, const ev_opts *o, const char *host, char **shas, size_t n, const engines *es,
                       const ev_window *w, ev_page *out, int64_t *t_min, int64_t *t_max, lvd_err *err)
{
    size_t nights = o->nights ? o->nights : EV_NIGHTS_DEFAULT;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        lvd_run *runs;
        size_t nr;
        int owned;
        rc = ev_window_model(s, w, host, shas[i], nights, &runs, &nr, &owned, err);
        if (rc == 0)
            rc = load_model(s, o, host, shas[i], es, runs, nr, &out->models[i], t_min, t_max, err);
        out->n_models = i + 1;
        if (owned)
            store_run_list_free(runs, nr);
        else
            free(runs);
    }
    return rc;
}

static int is_hex(const char *s)
{
    for (; *s; s++)
        if (!isxdigit((unsigned char)*s) || isupper((unsigned char)*s))
            return 0;
    return 1;
}

/* The identity of the model at path (store/identify.h: a split model's
 * covers every shard), without writing to the store: from the caches when
 * they answer, else by hashing its files; it must be one
 * of the artifacts all[0..na). 0 or -1 (err names the path). */
static int identify_path(store *s, const char *path, const store_artifact *all, size_t na,
                         char sha[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    store_artifact a;
    int rc = store_identify_cached(s, path, &a, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        snprintf(sha, LVD_SHA256_HEX_LEN + 1, "%s", a.sha256);
        store_artifact_free(&a);
        return 0;
    }
    if (store_identify_bytes(path, sha, err) != 0)
        return -1;
    for (size_t i = 0; i < na; i++)
        if (!strcmp(all[i].sha256, sha))
            return 0;
    return lvd_errf(err, "%s: model %s (sha256 %.12s) is not in the store", store_path(s), path, sha);
}

/* The sha256s the page covers, sorted later by name. */
static int resolve_models(store *s, const ev_opts *o, const char *host, char ***out, size_t *n, lvd_err *err)
{
    store_artifact *all;
    size_t na;
    *out = NULL;
    *n = 0;
    if (store_artifact_list(s, &all, &na, err) != 0)
        return -1;
    char **v = lvd_xcalloc((o->n_models ? o->n_models : na) + 1, sizeof *v);
    size_t k = 0;
    int rc = 0;
    if (!o->n_models) {
        for (size_t i = 0; i < na && rc == 0; i++) {
            store_run_filter f = {.artifact = all[i].sha256, .host = host, .limit = 1};
            lvd_run *r;
            size_t nr;
            if (store_run_list(s, &f, &r, &nr, err) != 0) {
                rc = -1;
                break;
            }
            if (nr)
                v[k++] = lvd_xstrdup(all[i].sha256);
            store_run_list_free(r, nr);
        }
    }
    for (size_t m = 0; m < o->n_models && rc == 0; m++) {
        const char *arg = o->models[m];
        const char *found = NULL;
        size_t hits = 0;
        if (strlen(arg) >= 8 && strlen(arg) <= LVD_SHA256_HEX_LEN && is_hex(arg)) {
            for (size_t i = 0; i < na; i++)
                if (lvd_starts_with(all[i].sha256, arg)) {
                    found = all[i].sha256;
                    hits++;
                }
            if (hits > 1) {
                lvd_errf(err, "%s: model '%s' matches %zu artifacts; give more of the sha256", store_path(s),
                         arg, hits);
                rc = -2;
                break;
            }
            if (hits == 1) {
                v[k++] = lvd_xstrdup(found);
                continue;
            }
            if (strlen(arg) == LVD_SHA256_HEX_LEN) {
                lvd_errf(err, "%s: no artifact %s in the store", store_path(s), arg);
                rc = -2;
                break;
            }
        }
        char sha[LVD_SHA256_HEX_LEN + 1];
        if (identify_path(s, arg, all, na, sha, err) != 0) {
            rc = -2; /* unreadable, no such file, or not in the store (err names it) */
            break;
        }
        v[k++] = lvd_xstrdup(sha);
    }
    store_artifact_list_free(all, na);
    if (rc != 0) {
        lvd_strv_free(v);
        return rc;
    }
    /* distinct (the page orders the models by name) */
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        size_t j = 0;
        while (j < w && strcmp(v[j], v[i]))
            j++;
        if (j < w)
            free(v[i]);
        else
            v[w++] = v[i];
    }
    v[w] = NULL;
    *out = v;
    *n = w;
    return 0;
}

static int cmp_model(const void *pa, const void *pb)
{
    const ev_model *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->sha256, b->sha256);
}

static int load_pin(store *s, size_t nights, ev_pin *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    lvd_pin_decision *ds;
    size_t n;
    if (store_pin_decision_list(s, (int)nights, &ds, &n, err) != 0)
        return -1;
    out->hist = lvd_xcalloc(n ? n : 1, sizeof *out->hist);
    out->n_hist = n;
    for (size_t i = 0; i < n; i++) {
        ev_pin_entry *e = &out->hist[i];
        ev_datetime(ds[i].decided_at, e->date);
        e->pinned = lvd_xstrdup(ds[i].pinned_build ? ds[i].pinned_build : "?");
        e->candidate = lvd_xstrdup(ds[i].candidate_build ? ds[i].candidate_build : "none");
        e->decision = lvd_xstrdup(ds[i].decision ? ds[i].decision : "?");
        e->rule = lvd_xstrdup(ds[i].rule ? ds[i].rule : "");
        e->applied = ds[i].details_json && strstr(ds[i].details_json, "\"applied\":true") != NULL;
    }
    int rc = 0;
    if (n && ds[0].details_json) {
        lvd_err perr = {{0}};
        if (sel_pin_details_rows(ds[0].details_json, &out->rows, &out->n_rows, &out->issues, &out->n_issues,
                                 &perr) != 0) {
            out->rows = NULL;
            out->n_rows = 0;
        }
    }
    store_pin_decision_list_free(ds, n);
    return rc;
}

void ev_page_free(ev_page *p)
{
    free(p->title);
    free(p->host);
    lvd_strv_free(p->older);
    for (size_t i = 0; i < p->n_models; i++)
        ev_model_free(&p->models[i]);
    free(p->models);
    for (size_t i = 0; i < p->pin.n_hist; i++) {
        ev_pin_entry *e = &p->pin.hist[i];
        free(e->pinned);
        free(e->candidate);
        free(e->decision);
        free(e->rule);
    }
    free(p->pin.hist);
    sel_pin_rows_free(p->pin.rows, p->pin.n_rows);
    lvd_strv_free(p->pin.issues);
    ev_hunt_free(&p->hunt);
    if (p->fleet) {
        ev_fleet_free(p->fleet);
        free(p->fleet);
    }
    memset(p, 0, sizeof *p);
}

/* A store several hosts write: the page ends with the fleet section. */
static int load_fleet(store *s, ev_page *out, lvd_err *err)
{
    ev_fleet *f = lvd_xcalloc(1, sizeof *f);
    if (ev_fleet_load(s, f, err) != 0) {
        free(f);
        return -1;
    }
    if (f->n_hosts > 1) {
        out->fleet = f;
    } else {
        ev_fleet_free(f);
        free(f);
    }
    return 0;
}

int ev_page_load(store *s, const ev_opts *o, ev_page *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    const char *host = o->host ? o->host : lvd_hostname();
    out->title = lvd_xstrdup(o->title ? o->title : EV_TITLE_DEFAULT);
    out->host = lvd_xstrdup(host);
    char **shas;
    size_t n;
    int r = resolve_models(s, o, host, &shas, &n, err);
    if (r != 0) {
        ev_page_free(out);
        return r;
    }
    engines es;
    if (engines_load(s, &es, err) != 0) {
        engines_free(&es);
        lvd_strv_free(shas);
        ev_page_free(out);
        return -1;
    }
    older_load(&es, out);
    out->models = lvd_xcalloc(n ? n : 1, sizeof *out->models);
    int64_t t_min = 0, t_max = 0;
    size_t nights = o->nights ? o->nights : EV_NIGHTS_DEFAULT;
    /* the page's nights and the drift's, read once, and nothing older: its cost is what it shows */
    ev_window w;
    int rc = ev_window_load(s, host, ev_hunt_nights(nights), &w, err);
    if (rc == 0)
        rc = load_models(s, o, host, shas, n, &es, &w, out, &t_min, &t_max, err);
    engines_free(&es);
    lvd_strv_free(shas);
    if (rc == 0)
        rc = load_pin(s, nights, &out->pin, err);
    if (rc == 0)
        rc = ev_hunt_load(s, host, w.v, w.n, &out->hunt, err);
    ev_window_free(&w);
    if (rc == 0)
        rc = load_fleet(s, out, err);
    if (rc != 0) {
        ev_page_free(out);
        return -1;
    }
    qsort(out->models, out->n_models, sizeof *out->models, cmp_model);
    if (t_min) {
        ev_date(t_min, out->first_date);
        ev_date(t_max, out->last_date);
    }
    return 0;
}
