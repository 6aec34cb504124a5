/* test_store_cols.c: a row type's columns written once (store/store_cols.h):
 * the lists, placeholders, positions and clash clause a table gives, and
 * every row type written and read back through its table (runs, verdicts,
 * checks, engines, probes and their devices, pin decisions, pins, fit
 * prints, fit plans, ceilings, bisects and their steps, session facts) with every column set to a value of its own, NULLs included (the
 * sentinels a column stores as NULL), so that a column the INSERT binds but
 * a SELECT drops, reads at another place (the engines-and-probes join
 * included) or a clash leaves at its old value, shows. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/bisectdb.h"
#include "store/factsdb.h"
#include "store/store.h"
#include "store/store_cols.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

typedef tu_storefx fx;

typedef struct row {
    int64_t id;
    char *name;
    lvd_params p;
    char uid[33];
} row;

static const store_col row_cols[] = {
    STORE_COL(row, id, STORE_COL_I64, "id", STORE_COL_R),
    STORE_COL(row, name, STORE_COL_TEXT, "name", STORE_COL_RW),
    STORE_COL(row, p, STORE_COL_PARAMS,
              "p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, p_threads, p_env", STORE_COL_RW),
    STORE_COL(row, uid, STORE_COL_UID, "uid", STORE_COL_W),
    {.name = "stats", .read = "NULL", .kind = STORE_COL_DOC, .use = STORE_COL_RW},
    STORE_COL(row, p, STORE_COL_PARALLEL, "p_parallel", STORE_COL_RW),
};
#define N LVD_ARRAY_LEN(row_cols)

/* The same row as an upsert names it: by its name, keeping its uid. */
static const store_col key_cols[] = {
    STORE_COL(row, name, STORE_COL_TEXT, "name", STORE_COL_RW | STORE_COL_KEY),
    STORE_COL(row, p, STORE_COL_FIT, "p_fit_target, p_fit_ctx", STORE_COL_RW),
    STORE_COL(row, uid, STORE_COL_UID, "uid", STORE_COL_W | STORE_COL_KEEP),
    STORE_COL(row, id, STORE_COL_I64, "id", STORE_COL_R),
};

static void test_lists(void **state)
{
    (void)state;
    lvd_sb sb = {0};
    store_cols_names(&sb, row_cols, N, STORE_COL_W, NULL);
    assert_string_equal(lvd_sb_str(&sb), "name, p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, "
                                         "p_threads, p_env, uid, stats, p_parallel");
    sb.len = 0;
    store_cols_names(&sb, row_cols, N, STORE_COL_R, NULL);
    assert_string_equal(lvd_sb_str(&sb), "id, name, p_device, p_ngl, p_fa, p_ubatch, p_type_k, p_type_v, p_n_cpu_moe, "
                                         "p_threads, p_env, NULL, p_parallel");
    sb.len = 0;
    store_cols_marks(&sb, row_cols, N);
    assert_string_equal(lvd_sb_str(&sb), "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?"); /* 1 + 9 + 1 + 1 + 1 */
    lvd_sb_free(&sb);
    /* the params group is nine wide either way */
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_W, 1, "name"), 1);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_W, 1, "uid"), 11);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_W, 1, "p_parallel"), 13);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_R, 0, "stats"), 11);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_R, 0, "p_parallel"), 12);
    assert_int_equal(store_cols_at(row_cols, N, STORE_COL_R, 0, "uid"), -1); /* written only */
    assert_int_equal(store_cols_width(row_cols, N, STORE_COL_W), 13);
    assert_int_equal(store_cols_width(row_cols, N, STORE_COL_R), 13);
    /* a clash updates every written column but the key and the kept, a group's one by one */
    lvd_sb up = {0};
    store_cols_upsert_sql(&up, key_cols, LVD_ARRAY_LEN(key_cols));
    assert_string_equal(lvd_sb_str(&up), " ON CONFLICT(name) DO UPDATE SET p_fit_target = excluded.p_fit_target,"
                                         " p_fit_ctx = excluded.p_fit_ctx");
    lvd_sb_free(&up);
}

static int64_t deps(store *s)
{
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 1};
    assert_int_equal(store_artifact_put(s, &a, &err), 0);
    return tu_engine_put(s, "cuda", "/e/cuda");
}

/* A run with every column of its own set to a value no other column has. */
static void every_run(lvd_run *r, int64_t eid)
{
    *r = (lvd_run){
        .artifact = SHA_A, .engine_id = eid, .status = "failed", .source = "import",
        .binary = lvd_xstrdup("/e/cuda/llama-bench"), .build = lvd_xstrdup("b9749"),
        .host = lvd_xstrdup("gpu-box"), .session = lvd_xstrdup("night-7"), .params = tu_params_every(),
        .arm_key = lvd_xstrdup("arm-every"), .build_commit = lvd_xstrdup("abc1234"), .build_number = 9749,
        .reason = lvd_xstrdup("out of memory"), .exit_code = 137,
        .stderr_tail = lvd_xstrdup("ggml_vulkan: allocation failed"), .left_out = lvd_xstrdup("-fitt"),
        .started_at = 1700000000, .wall_ms = 4321,
    };
    r->params.parallel = 3;
    r->params.fused_moe = 0; /* ik_llama.cpp's knobs */
    r->params.repack = 1;
}

static void test_run_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_run r;
    every_run(&r, deps(f->s));
    assert_int_equal(store_run_put(f->s, &r, &err), 0);
    store_run_filter flt = {0};
    lvd_run *v;
    size_t n;
    assert_int_equal(store_run_list(f->s, &flt, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    const lvd_run *g = &v[0];
    assert_int_equal(g->id, r.id);
    assert_string_equal(g->artifact, r.artifact);
    assert_int_equal(g->engine_id, r.engine_id);
    assert_string_equal(g->binary, r.binary);
    assert_string_equal(g->build, r.build);
    assert_string_equal(g->host, r.host);
    assert_string_equal(g->session, r.session);
    assert_memory_equal(&g->params, &r.params, sizeof r.params); /* params, split, fit, parallel, knobs */
    assert_string_equal(g->arm_key, r.arm_key);
    assert_string_equal(g->build_commit, r.build_commit);
    assert_int_equal(g->build_number, r.build_number);
    assert_string_equal(g->status, r.status);
    assert_string_equal(g->reason, r.reason);
    assert_int_equal(g->exit_code, r.exit_code);
    assert_string_equal(g->stderr_tail, r.stderr_tail);
    assert_string_equal(g->left_out, r.left_out);
    assert_int_equal(g->started_at, r.started_at);
    assert_int_equal(g->wall_ms, r.wall_ms);
    assert_string_equal(g->source, r.source);
    store_run_list_free(v, n);
    /* the uid column got a fresh uid: 32 hex characters */
    assert_int_equal(tu_raw_int(f->path, "SELECT length(uid) FROM runs"), 32);
    lvd_run_free(&r);
}

/* A verdict with every column set, or (none) with the ones that store NULL
 * at their sentinels: no winner (engine 0), no depth (-1). */
static void verdict(lvd_verdict *v, int64_t eid, int none)
{
    memset(v, 0, sizeof *v);
    strcpy(v->artifact, SHA_A);
    v->host = lvd_xstrdup("gpu-box");
    v->decided_at = none ? 1700000100 : 1700000200;
    v->objective = lvd_xstrdup("tg");
    v->engine_id = none ? 0 : eid;
    v->params = tu_params_every();
    v->params.parallel = 2;
    v->params.fused_moe = 1;
    v->params.repack = 0;
    v->arm_key = lvd_xstrdup("arm-every");
    v->rule = lvd_xstrdup(none ? "undecided" : "win");
    v->explain = lvd_xstrdup("because");
    v->fingerprint = lvd_xstrdup("1:/e/cuda:b9749:123");
    v->stats_json = lvd_xstrdup("{\"arms\":[]}");
    v->depth = none ? -1 : 4096;
}

static void same_verdict(const lvd_verdict *g, const lvd_verdict *v, int stats)
{
    assert_int_equal(g->id, v->id);
    assert_string_equal(g->artifact, v->artifact);
    assert_string_equal(g->host, v->host);
    assert_int_equal(g->decided_at, v->decided_at);
    assert_string_equal(g->objective, v->objective);
    assert_int_equal(g->engine_id, v->engine_id);
    assert_memory_equal(&g->params, &v->params, sizeof v->params);
    assert_string_equal(g->arm_key, v->arm_key);
    assert_string_equal(g->rule, v->rule);
    assert_string_equal(g->explain, v->explain);
    assert_string_equal(g->fingerprint, v->fingerprint);
    if (stats)
        assert_string_equal(g->stats_json, v->stats_json);
    else
        assert_null(g->stats_json); /* the latest verdict is read without them */
    assert_int_equal(g->depth, v->depth);
}

static void test_verdict_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = deps(f->s);
    lvd_verdict a, b;
    verdict(&a, eid, 1);
    verdict(&b, eid, 0);
    assert_int_equal(store_verdict_put(f->s, &a, &err), 0);
    assert_int_equal(store_verdict_put(f->s, &b, &err), 0);
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM verdicts WHERE engine_id IS NULL"
                                         " AND serving_depth IS NULL"), 1);
    lvd_verdict *v;
    size_t n;
    assert_int_equal(store_verdict_list(f->s, SHA_A, "gpu-box", 0, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    same_verdict(&v[0], &b, 1); /* newest first */
    same_verdict(&v[1], &a, 1);
    store_verdict_list_free(v, n);
    lvd_verdict latest;
    assert_int_equal(store_verdict_latest(f->s, SHA_A, "gpu-box", "tg", &latest, &err), 0);
    same_verdict(&latest, &b, 0);
    lvd_verdict_free(&latest);
    lvd_verdict_free(&a);
    lvd_verdict_free(&b);
}

/* Two checks: every figure measured, and none (NAN, stored as NULL). */
static void test_check_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = deps(f->s);
    lvd_check c[2] = {
        {.artifact = SHA_A, .engine_id = eid, .device = "CUDA1", .host = "gpu-box", .ran_at = 1700000300,
         .status = "fail", .mean_kld = 0.25, .same_top_p = 91.5, .ppl = 7.5, .ppl_base = 7.25, .ppl_ratio = 1.0345,
         .reason = "kld above tolerance", .env = "CUDA_VISIBLE_DEVICES=1"},
        {.artifact = SHA_A, .engine_id = eid, .host = "gpu-box", .ran_at = 1700000200, .status = "error",
         .mean_kld = NAN, .same_top_p = NAN, .ppl = NAN, .ppl_base = NAN, .ppl_ratio = NAN},
    };
    for (int i = 0; i < 2; i++)
        assert_int_equal(store_check_put(f->s, &c[i], &err), 0);
    lvd_check *v;
    size_t n;
    assert_int_equal(store_check_list(f->s, SHA_A, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    for (int i = 0; i < 2; i++) { /* newest first: c's order */
        const lvd_check *g = &v[i], *w = &c[i];
        assert_int_equal(g->id, w->id);
        assert_string_equal(g->artifact, w->artifact);
        assert_int_equal(g->engine_id, w->engine_id);
        assert_string_equal(g->device, w->device);
        assert_string_equal(g->host, w->host);
        assert_int_equal(g->ran_at, w->ran_at);
        assert_string_equal(g->status, w->status);
        const double got[] = {g->mean_kld, g->same_top_p, g->ppl, g->ppl_base, g->ppl_ratio};
        const double want[] = {w->mean_kld, w->same_top_p, w->ppl, w->ppl_base, w->ppl_ratio};
        for (int k = 0; k < 5; k++)
            assert_true(isnan(want[k]) ? isnan(got[k]) : got[k] == want[k]);
        if (w->reason)
            assert_string_equal(g->reason, w->reason);
        else
            assert_null(g->reason);
        assert_string_equal(g->env, w->env);
    }
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM checks WHERE mean_kld IS NULL AND ppl_ratio IS NULL"), 1);
    store_check_list_free(v, n);
}

static void same_engine(const lvd_engine *g, const lvd_engine *e)
{
    assert_int_equal(g->id, e->id);
    assert_string_equal(g->name, e->name);
    assert_string_equal(g->dir, e->dir);
    assert_string_equal(g->build, e->build);
    assert_string_equal(g->commit, e->commit);
    assert_string_equal(g->semver, e->semver);
    assert_string_equal(g->family, e->family);
    assert_string_equal(g->release, e->release);
    assert_string_equal(g->flavour, e->flavour);
    assert_string_equal(g->digest, e->digest);
    assert_string_equal(g->origin, e->origin);
    assert_int_equal(g->created_at, e->created_at);
    assert_string_equal(g->host, e->host);
}

/* Registered, then again under its name with every other column changed:
 * the second takes all of them but the time it was first registered. */
static void test_engine_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_engine e = {.name = "ik-cuda", .dir = "/e/ik", .build = "b4000", .commit = "abc1234", .semver = "0.4.1",
                    .family = LVD_FAMILY_IK, .release = "v0.4.1", .flavour = "cuda", .digest = "d1",
                    .origin = "fetched", .created_at = 1700000400, .host = "gpu-box"};
    assert_int_equal(store_engine_put(f->s, &e, &err), 0);
    lvd_engine g;
    assert_int_equal(store_engine_get(f->s, e.id, &g, &err), 0);
    same_engine(&g, &e);
    lvd_engine_free(&g);
    lvd_engine again = {.name = "ik-cuda", .dir = "/e/ik2", .build = "b4100", .commit = "def5678", .semver = "0.4.2",
                        .family = LVD_FAMILY_UNKNOWN, .release = "v0.4.2", .flavour = "local", .digest = "d2",
                        .origin = "registered", .created_at = 1700000500, .host = "gpu-box"};
    assert_int_equal(store_engine_put(f->s, &again, &err), 0);
    assert_int_equal(again.id, e.id);
    assert_int_equal(again.created_at, e.created_at); /* kept */
    assert_int_equal(store_engine_get(f->s, e.id, &g, &err), 0);
    same_engine(&g, &again);
    lvd_engine_free(&g);
}

static void same_device(const lvd_device *g, const lvd_device *d)
{
    assert_string_equal(g->selector, d->selector);
    assert_string_equal(g->name, d->name);
    assert_int_equal(g->total_mib, d->total_mib);
    assert_int_equal(g->free_mib, d->free_mib);
    assert_string_equal(g->backend, d->backend);
    assert_string_equal(g->compute_cap, d->compute_cap);
}

static void same_probe(const lvd_probe *g, const lvd_probe *p)
{
    assert_int_equal(g->id, p->id);
    assert_int_equal(g->engine_id, p->engine_id);
    assert_string_equal(g->binary, p->binary);
    assert_int_equal(g->bin_mtime_ns, p->bin_mtime_ns);
    assert_int_equal(g->bin_size, p->bin_size);
    assert_int_equal(g->probed_at, p->probed_at);
    assert_string_equal(g->backend, p->backend);
    assert_string_equal(g->reason, p->reason);
    assert_string_equal(g->env, p->env);
    assert_string_equal(g->files, p->files);
    assert_string_equal(g->backends, p->backends);
    assert_string_equal(g->no_device, p->no_device);
    assert_string_equal(g->cuda_archs, p->cuda_archs);
    assert_string_equal(g->flags, p->flags);
    assert_int_equal(g->n_devices, p->n_devices);
    for (size_t i = 0; i < p->n_devices; i++)
        same_device(&g->devices[i], &p->devices[i]);
}

/* A probe with every column set and two devices, one with the columns that
 * store NULL at their sentinels, read alone and through the engines'
 * join. */
static void test_probe_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_engine e = {.name = "cuda", .dir = "/e/cuda", .build = "b9749", .origin = "registered", .host = "gpu-box"};
    assert_int_equal(store_engine_put(f->s, &e, &err), 0);
    lvd_device d[2] = {
        {.selector = "CUDA0", .name = "NVIDIA H200", .total_mib = 143000, .free_mib = 140000, .backend = "cuda",
         .compute_cap = "9.0"},
        {.selector = "Vulkan0", .name = "llvmpipe", .total_mib = -1, .free_mib = -1, .backend = "vulkan"},
    };
    lvd_probe p = {.engine_id = e.id, .binary = "/e/cuda/llama-bench", .bin_mtime_ns = 1700000000123456789,
                   .bin_size = 4096, .probed_at = 1700000600, .backend = "cuda", .reason = "why not",
                   .env = "CUDA_VISIBLE_DEVICES=0", .devices = d, .n_devices = 2, .files = "files-key",
                   .backends = "cpu,cuda", .no_device = "Vulkan backend present, no Vulkan device",
                   .cuda_archs = "890,900", .flags = "-fitt,-fitc"};
    assert_int_equal(store_probe_put(f->s, &p, &err), 0);
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM devices WHERE total_mib IS NULL AND free_mib IS NULL"
                                         " AND compute_cap IS NULL"), 1);
    lvd_probe g;
    assert_int_equal(store_probe_latest(f->s, e.id, &g, &err), 0);
    same_probe(&g, &p);
    lvd_probe_free(&g);
    lvd_engine *ev;
    lvd_probe *pv;
    size_t n;
    assert_int_equal(store_engines_probed(f->s, "gpu-box", p.env, &ev, &pv, &n, &err), 0);
    assert_int_equal(n, 1);
    e.family = LVD_FAMILY_MAINLINE; /* as written */
    e.commit = e.semver = e.release = e.flavour = e.digest = NULL;
    assert_int_equal(ev[0].id, e.id);
    assert_string_equal(ev[0].family, e.family);
    assert_int_equal(ev[0].created_at, e.created_at);
    same_probe(&pv[0], &p);
    store_engine_list_free(ev, n);
    store_probe_list_free(pv, n);
}

/* A probe whose unknowns are stored as "" or NULL reads back as unknown. */
static void test_probe_unknowns(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = tu_engine_put(f->s, "cpu", "/e/cpu");
    lvd_probe p = {.engine_id = eid, .binary = "/e/cpu/llama-bench", .backend = "cpu"};
    assert_int_equal(store_probe_put(f->s, &p, &err), 0);
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM probes WHERE env = '' AND backends IS NULL"
                                         " AND cuda_archs IS NULL AND files IS NULL"), 1);
    lvd_probe g;
    assert_int_equal(store_probe_latest(f->s, eid, &g, &err), 0);
    assert_string_equal(g.env, "");
    assert_string_equal(g.backends, "");
    assert_string_equal(g.cuda_archs, "");
    assert_null(g.files);
    assert_null(g.flags);
    assert_int_equal(g.n_devices, 0);
    lvd_probe_free(&g);
}

static void test_pin_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    lvd_pin_decision d = {.decided_at = 1700000700, .pinned_build = "b9749", .candidate_build = "b9800",
                          .decision = "promote", .rule = "faster", .details_json = "{\"ratio\":1.1}"};
    assert_int_equal(store_pin_decision_put(f->s, &d, &err), 0);
    lvd_pin_decision g;
    assert_int_equal(store_pin_decision_latest(f->s, "b9749", "b9800", &g, &err), 0);
    assert_int_equal(g.id, d.id);
    assert_int_equal(g.decided_at, d.decided_at);
    assert_string_equal(g.pinned_build, d.pinned_build);
    assert_string_equal(g.candidate_build, d.candidate_build);
    assert_string_equal(g.decision, d.decision);
    assert_string_equal(g.rule, d.rule);
    assert_string_equal(g.details_json, d.details_json);
    lvd_pin_decision_free(&g);
    assert_int_equal(store_pin_record(f->s, "b9800", "cuda", SHA_A, "nightly", &err), 0);
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM pins WHERE build = 'b9800' AND flavour = 'cuda'"
                                         " AND sha256 = '" SHA_A "' AND pinned_at > 0 AND source = 'nightly'"), 1);
}

static void same_fitprint(const store_fitprint *g, const store_fitprint *w)
{
    assert_int_equal(g->engine_id, w->engine_id);
    assert_string_equal(g->artifact, w->artifact);
    assert_string_equal(g->host, w->host);
    assert_int_equal(g->ctx, w->ctx);
    assert_int_equal(g->ubatch, w->ubatch);
    assert_int_equal(g->fa, w->fa);
    assert_string_equal(g->type_k, w->type_k);
    assert_string_equal(g->type_v, w->type_v);
    assert_string_equal(g->device, w->device);
    assert_int_equal(g->dev_model, w->dev_model);
    assert_int_equal(g->dev_context, w->dev_context);
    assert_int_equal(g->dev_compute, w->dev_compute);
    assert_int_equal(g->host_model, w->host_model);
    assert_int_equal(g->host_context, w->host_context);
    assert_int_equal(g->host_compute, w->host_compute);
    assert_string_equal(g->files, w->files ? w->files : "");
    assert_int_equal(g->created_at, w->created_at);
}

/* Written, then again at the same setting with every figure changed (the
 * device's to none): one row, the second's. */
static void test_fitprint_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = deps(f->s);
    store_fitprint a = {.engine_id = eid, .artifact = SHA_A, .host = "gpu-box", .ctx = 8192, .ubatch = 256, .fa = 1,
                        .type_k = "q8_0", .type_v = "q4_0", .device = "CUDA0", .dev_model = 4000,
                        .dev_context = 1000, .dev_compute = 300, .host_model = 40, .host_context = 10,
                        .host_compute = 3, .files = "files-key", .created_at = 1700000800};
    assert_int_equal(store_fitprint_put(f->s, &a, &err), 0);
    store_fitprint *v;
    size_t n;
    assert_int_equal(store_fitprint_list(f->s, SHA_A, "gpu-box", &v, &n, &err), 0);
    assert_int_equal(n, 1);
    same_fitprint(&v[0], &a);
    store_fitprint_list_free(v, n);
    store_fitprint b = a;
    b.dev_model = b.dev_context = b.dev_compute = -1;
    b.host_model = 41;
    b.host_context = 11;
    b.host_compute = 4;
    b.files = NULL;
    b.created_at = 1700000900;
    assert_int_equal(store_fitprint_put(f->s, &b, &err), 0);
    assert_int_equal(store_fitprint_list(f->s, SHA_A, "gpu-box", &v, &n, &err), 0);
    assert_int_equal(n, 1);
    same_fitprint(&v[0], &b);
    store_fitprint_list_free(v, n);
}

static void same_ceiling(const store_ceiling *g, const store_ceiling *c)
{
    assert_int_equal(g->id, c->id);
    assert_string_equal(g->artifact, c->artifact);
    assert_int_equal(g->engine_id, c->engine_id);
    assert_string_equal(g->engine_key, c->engine_key ? c->engine_key : "");
    assert_string_equal(g->device, c->device);
    assert_string_equal(g->type_k, c->type_k);
    assert_string_equal(g->type_v, c->type_v);
    assert_string_equal(g->placement, c->placement ? c->placement : "");
    assert_int_equal(g->ceiling, c->ceiling);
    assert_int_equal(g->capped, !!c->capped);
    assert_int_equal(g->max_ctx, c->max_ctx);
    assert_int_equal(g->predicted, c->predicted);
    assert_int_equal(g->free_mib, c->free_mib);
    assert_int_equal(g->probes, c->probes);
    assert_string_equal(g->host, c->host);
    assert_int_equal(g->measured_at, c->measured_at);
}

/* Two ceilings of one setting on two devices: every column set, and the
 * ones stored at their sentinels ("" or NULL; capped written 0 or 1). */
static void test_ceiling_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = deps(f->s);
    store_ceiling c[2] = {
        {.artifact = SHA_A, .engine_id = eid, .engine_key = "1:/e/cuda:b9749", .device = "CUDA0", .type_k = "q8_0",
         .type_v = "q4_0", .placement = "ngl=99 ncmoe=0 ub=512", .ceiling = 65536, .capped = 7, .max_ctx = 131072,
         .predicted = 70000, .free_mib = 80000, .probes = 9, .host = "gpu-box", .measured_at = 1700001000},
        {.artifact = SHA_A, .engine_id = eid, .device = "CUDA1", .type_k = "q8_0", .type_v = "q4_0",
         .max_ctx = 4096, .predicted = -1, .free_mib = -1, .probes = 1, .host = "gpu-box", .measured_at = 1700001100},
    };
    for (int i = 0; i < 2; i++)
        assert_int_equal(store_ceiling_put(f->s, &c[i], &err), 0);
    for (int i = 0; i < 2; i++) {
        store_ceiling g;
        assert_int_equal(store_ceiling_latest(f->s, SHA_A, "gpu-box", eid, c[i].device, "q8_0", "q4_0", &g, &err), 0);
        same_ceiling(&g, &c[i]);
        store_ceiling_free(&g);
    }
    store_ceiling *v;
    size_t n;
    assert_int_equal(store_ceiling_list(f->s, SHA_A, "gpu-box", &v, &n, &err), 0);
    assert_int_equal(n, 2);
    same_ceiling(&v[1], &c[1]);
    store_ceiling_list_free(v, n);
}

static void test_fit_plan_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    int64_t eid = deps(f->s);
    store_fit_plan p[2] = {
        {.artifact = SHA_A, .engine_id = eid, .host = "gpu-box", .session = "night-7", .device = "CUDA0",
         .free_mib = 80000, .fit_target = 1024, .fit_ctx = 8192, .ctx = 16384, .ngl = 40,
         .overrides = "blk\\.1[0-9]\\.ffn_.*_exps=CPU", .host_blocks = 10, .ours = "-ngl 40 -ncmoe 10",
         .created_at = 1700001200},
        {.artifact = SHA_A, .engine_id = eid, .host = "gpu-box", .device = "CPU", .free_mib = -1,
         .created_at = 1700001300},
    };
    for (int i = 0; i < 2; i++)
        assert_int_equal(store_fit_plan_put(f->s, &p[i], &err), 0);
    assert_int_equal(tu_raw_int(f->path, "SELECT count(*) FROM fit_plans WHERE free_mib IS NULL AND overrides = ''"), 1);
    store_fit_plan *v;
    size_t n;
    assert_int_equal(store_fit_plan_list(f->s, SHA_A, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    for (int i = 0; i < 2; i++) { /* oldest first */
        const store_fit_plan *g = &v[i], *w = &p[i];
        assert_int_equal(g->id, w->id);
        assert_string_equal(g->artifact, w->artifact);
        assert_int_equal(g->engine_id, w->engine_id);
        assert_string_equal(g->host, w->host);
        if (w->session)
            assert_string_equal(g->session, w->session);
        else
            assert_null(g->session);
        assert_string_equal(g->device, w->device);
        assert_int_equal(g->free_mib, w->free_mib);
        assert_int_equal(g->fit_target, w->fit_target);
        assert_int_equal(g->fit_ctx, w->fit_ctx);
        assert_int_equal(g->ctx, w->ctx);
        assert_int_equal(g->ngl, w->ngl);
        assert_string_equal(g->overrides, w->overrides ? w->overrides : "");
        assert_int_equal(g->host_blocks, w->host_blocks);
        if (w->ours)
            assert_string_equal(g->ours, w->ours);
        else
            assert_null(g->ours);
        assert_int_equal(g->created_at, w->created_at);
    }
    store_fit_plan_list_free(v, n);
}

static void same_step(const store_bisect_step *g, const store_bisect_step *x)
{
    assert_string_equal(g->build, x->build);
    assert_string_equal(g->verdict, x->verdict);
    assert_string_equal(g->reason, x->reason ? x->reason : "");
    assert_string_equal(g->commit, x->commit);
    assert_string_equal(g->session, x->session);
    const double got[] = {g->vs_good, g->vs_good_lo, g->vs_good_hi, g->vs_bad, g->vs_bad_lo, g->vs_bad_hi};
    const double want[] = {x->vs_good, x->vs_good_lo, x->vs_good_hi, x->vs_bad, x->vs_bad_lo, x->vs_bad_hi};
    for (int k = 0; k < 6; k++)
        assert_true(isfinite(want[k]) ? got[k] == want[k] : isnan(got[k]));
    assert_int_equal(g->downloaded, x->downloaded);
    assert_int_equal(g->at, x->at);
}

/* A hunt and two steps, the second with its ratios not measured or not
 * finite (stored as NULL, read back as NAN), then the hunt finished. */
static void test_bisect_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    store_bisect b = {.key = "gpu-box|a|cuda|tg128|fa1|b1|b9", .host = "gpu-box", .artifact = SHA_A,
                      .flavour = "cuda", .test = "tg128", .arm = "fa1", .good = "b1", .bad = "b9",
                      .started_at = 1700001400};
    int resumed;
    assert_int_equal(store_bisect_open(f->s, &b, &resumed, &err), 0);
    assert_false(resumed);
    store_bisect_step x[2] = {
        {.build = "b5", .verdict = "good", .reason = "as fast", .commit = "abc", .session = "bisect-1",
         .vs_good = 1.01, .vs_good_lo = 0.99, .vs_good_hi = 1.03, .vs_bad = 1.2, .vs_bad_lo = 1.15, .vs_bad_hi = 1.25,
         .downloaded = 1, .at = 1700001500},
        {.build = "b7", .verdict = "skip", .commit = "def", .session = "bisect-2", .vs_good = NAN,
         .vs_good_lo = INFINITY, .vs_good_hi = -INFINITY, .vs_bad = NAN, .vs_bad_lo = NAN, .vs_bad_hi = NAN,
         .at = 1700001600},
    };
    for (int i = 0; i < 2; i++)
        assert_int_equal(store_bisect_step_put(f->s, b.id, &x[i], &err), 0);
    store_bisect_step *v;
    size_t n;
    assert_int_equal(store_bisect_steps(f->s, b.id, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    for (int i = 0; i < 2; i++)
        same_step(&v[i], &x[i]);
    for (size_t i = 0; i < n; i++)
        store_bisect_step_free(&v[i]);
    free(v);
    assert_int_equal(store_bisect_finish(f->s, b.id, "b5", "b6", "{\"ok\":1}", &err), 0);
    store_bisect g;
    assert_int_equal(store_bisect_latest(f->s, &g, &err), 0);
    assert_int_equal(g.id, b.id);
    const char *got[] = {g.key, g.host, g.artifact, g.flavour, g.test, g.arm, g.good, g.bad};
    const char *want[] = {b.key, b.host, b.artifact, b.flavour, b.test, b.arm, b.good, b.bad};
    for (int i = 0; i < 8; i++)
        assert_string_equal(got[i], want[i]);
    assert_int_equal(g.started_at, b.started_at);
    assert_true(g.finished_at > 0);
    assert_string_equal(g.last_good, "b5");
    assert_string_equal(g.first_bad, "b6");
    assert_string_equal(g.result_json, "{\"ok\":1}");
    store_bisect_free(&g);
}

/* Two facts of a session, then one again from another host with another
 * value: that one replaced, the other kept. */
static void test_fact_every_column(void **state)
{
    fx *f = *state;
    lvd_err err = {0};
    char *names[] = {"gpu", "driver"}, *values[] = {"H200", "560.1"};
    assert_int_equal(store_facts_put(f->s, "night-7", "gpu-box", names, values, 2, &err), 0);
    char *again[] = {"565.0"};
    assert_int_equal(store_facts_put(f->s, "night-7", "gpu-box2", &names[1], again, 1, &err), 0);
    store_fact *v;
    size_t n;
    assert_int_equal(store_facts_list(f->s, NULL, &v, &n, &err), 0);
    assert_int_equal(n, 2);
    const store_fact *drv = !strcmp(v[0].name, "driver") ? &v[0] : &v[1], *gpu = drv == &v[0] ? &v[1] : &v[0];
    assert_string_equal(drv->session, "night-7");
    assert_string_equal(drv->host, "gpu-box2");
    assert_string_equal(drv->name, "driver");
    assert_string_equal(drv->value, "565.0");
    assert_true(drv->at > 0);
    assert_string_equal(gpu->host, "gpu-box");
    assert_string_equal(gpu->name, "gpu");
    assert_string_equal(gpu->value, "H200");
    store_facts_free(v, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test_setup_teardown(test_run_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_verdict_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_check_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_engine_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_probe_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_probe_unknowns, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_pin_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_fitprint_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_ceiling_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_fit_plan_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_bisect_every_column, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_fact_every_column, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
