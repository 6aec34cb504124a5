/* test_import.c: benchio_import_file on the real captures: grouping into runs,
 * keys and statuses, no duplicates on re-import, shared sessions, warm-up
 * flags as the bench runner sets them, all-or-nothing on a store failure,
 * the refusals (options, inconsistent files), and a llama-bench.sqlite read
 * in batches (runs whole across them, a mixed file refused whole). */
#include "tests/support/testutil.h"

#include "benchio/benchout.h"
#include "benchio/import.h"
#include "common/util.h"

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA "0a98828d99cb5c14b31b32e2ebb14c9ac148b673ebc69737b05949147fd32316"
#define FIX "llama.cpp/"

typedef tu_storefx fx;

/* Imports a file (relative to tests/fixtures, or absolute) registering DIR/engine as build. */
static int import(fx *f, const char *file, const char *build, benchio_import_report *rep, lvd_err *err)
{
    char *path = file[0] == '/' ? lvd_xstrdup(file) : tu_fixture(file);
    char *dir = lvd_xasprintf("%s/engine", f->dir);
    benchio_import_opts o = {.file = path, .engine_dir = dir, .build = build, .artifact = SHA, .host = "box"};
    int rc = benchio_import_file(f->s, &o, rep, err);
    free(dir);
    free(path);
    return rc;
}

static store_counts counts(fx *f)
{
    store_counts c;
    lvd_err err = {0};
    assert_int_equal(store_counts_get(f->s, &c, &err), 0);
    return c;
}

static void test_groups_and_keys(void **state)
{
    fx *f = *state;
    benchio_import_report rep;
    lvd_err err = {0};
    if (import(f, FIX "gpu-h200/bench-cuda-moe-ncmoe.jsonl", "cuda-local", &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.format, BENCHIO_FMT_JSONL);
    assert_int_equal(rep.rows, 6);
    assert_int_equal(rep.runs_added, 3); /* -ncmoe 0,4,8 */
    assert_int_equal(rep.results_added, 6);
    assert_int_equal(rep.engine_registered, 1);
    lvd_run *v;
    size_t n;
    store_run_filter flt = {.with_samples = 1};
    assert_int_equal(store_run_list(f->s, &flt, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    static const int ncmoe[] = {0, 4, 8};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].params.n_cpu_moe, ncmoe[i]);
        assert_int_equal(v[i].params.ngl, 99);
        assert_int_equal(v[i].n_results, 2);
        assert_string_equal(v[i].results[0].test, "pp512");
        assert_string_equal(v[i].results[1].test, "tg128");
        assert_string_equal(v[i].source, "import");
        assert_string_equal(v[i].status, "ok");
        assert_string_equal(v[i].host, "box");
        assert_string_equal(v[i].build, "cuda-local");
        assert_string_equal(v[i].build_commit, "unknown");
        assert_string_equal(v[i].session, "import:bench-cuda-moe-ncmoe.jsonl");
        assert_true(lvd_ends_with(v[i].binary, "/engine/llama-bench"));
    }
    assert_string_equal(v[1].arm_key, "dev=- ngl=99 fa=- ub=512 ctk=f16 ctv=f16 ncmoe=4 t=16 env=");
    assert_int_equal(v[0].started_at, 1796050176); /* 2026-11-30T14:49:36Z */
    store_run_list_free(v, n);
    lvd_engine e;
    assert_int_equal(store_engine_by_name(f->s, "cuda-local", &e, &err), 0);
    assert_string_equal(e.origin, "imported");
    assert_null(e.commit); /* "unknown" is no commit */
    lvd_engine_free(&e);
    store_artifact a;
    assert_int_equal(store_artifact_get(f->s, SHA, &a, &err), 0);
    assert_int_equal(a.shape.known, 0);
    assert_int_equal(a.size, -1);
    store_artifact_free(&a);

    /* Again: nothing new; the engine is found by its directory. */
    if (import(f, FIX "gpu-h200/bench-cuda-moe-ncmoe.jsonl", "cuda-local", &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.runs_added, 0);
    assert_int_equal(rep.runs_skipped, 3);
    assert_int_equal(rep.engine_registered, 0);
    assert_int_equal(counts(f).runs, 3);
    assert_int_equal(counts(f).engines, 1);
}

static void test_repeated_test_starts_a_run(void **state)
{
    fx *f = *state;
    /* The same invocation printed twice in one file (as an appended log is):
     * same parameters, but a test repeats, so two runs; the second copy of
     * the file adds none. */
    size_t n;
    char *src = tu_fixture(FIX "cpu-build-b9749/bench-jsonl.stdout");
    char *text = tu_read(src, &n);
    char *file = lvd_xasprintf("%s/twice.jsonl", f->dir);
    lvd_sb sb = {0};
    lvd_sb_add(&sb, text, n);
    /* A later invocation: other test_times. */
    char *later = lvd_xstrdup(text);
    for (char *p = later; (p = strstr(p, "14:38:5")); p++)
        p[7] = '9';
    lvd_sb_adds(&sb, later);
    tu_write(file, sb.buf, sb.len);
    benchio_import_report rep;
    lvd_err err = {0};
    if (import(f, file, "b9749", &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.rows, 6);
    assert_int_equal(rep.runs_added, 2);
    assert_int_equal(rep.results_added, 6);
    assert_int_equal(rep.samples_added, 18);
    if (import(f, FIX "cpu-build-b9749/bench-jsonl.stdout", "b9749", &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.runs_added, 0);
    assert_int_equal(rep.runs_skipped, 1);
    lvd_sb_free(&sb);
    free(later);
    free(file);
    free(text);
    free(src);
}

static void test_all_or_nothing(void **state)
{
    fx *f = *state;
    /* The store rejects the second run (a trigger from "another process"):
     * neither the first run nor the engine registration remain. */
    if (tu_pg()) {
        tu_pg_exec(f->path, "CREATE FUNCTION no_ncmoe4() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN"
                            " IF NEW.p_n_cpu_moe = 4 THEN RAISE EXCEPTION 'store full'; END IF; RETURN NEW; END$$;"
                            " CREATE TRIGGER no_ncmoe4 BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION no_ncmoe4()");
    } else {
        sqlite3 *db;
        assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db,
                                      "CREATE TRIGGER no_ncmoe4 BEFORE INSERT ON runs WHEN NEW.p_n_cpu_moe = 4"
                                      " BEGIN SELECT RAISE(ABORT, 'store full'); END",
                                      NULL, NULL, NULL),
                         SQLITE_OK);
        sqlite3_close(db);
    }
    benchio_import_report rep;
    lvd_err err = {0};
    assert_int_equal(import(f, FIX "gpu-h200/bench-cuda-moe-ncmoe.jsonl", "cuda-local", &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_STORE);
    assert_non_null(strstr(err.msg, "store full"));
    assert_int_equal(rep.runs_added, 0);
    store_counts c = counts(f);
    assert_int_equal(c.runs, 0);
    assert_int_equal(c.results, 0);
    assert_int_equal(c.engines, 0);
    assert_int_equal(c.artifacts, 0);
}

/* A llama-bench.sqlite (llama-bench -o sql | sqlite3: no sample arrays) of
 * `copies` invocations of the 3-row CPU capture, each a minute later; the
 * last `cuda` invocations report backend CUDA. */
static char *write_bench_db(fx *f, int copies, int cuda)
{
    size_t len;
    char *src = tu_fixture(FIX "cpu-build-b9749/bench-jsonl.stdout");
    char *text = tu_read(src, &len);
    char *path = lvd_xasprintf("%s/llama-bench.sqlite", f->dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_stmt *ins = NULL;
    for (int k = 0; k < copies; k++) {
        char *line = text, *nl;
        for (; *line && (nl = strchr(line, '\n')); line = nl + 1) {
            *nl = 0;
            cJSON *o = cJSON_Parse(line);
            *nl = '\n';
            assert_non_null(o);
            cJSON_DeleteItemFromObject(o, "samples_ns");
            cJSON_DeleteItemFromObject(o, "samples_ts");
            char when[32];
            snprintf(when, sizeof when, "2026-11-%02dT%02d:%02d:5%dZ", 1 + k / 1440, k / 60 % 24, k % 60,
                     (int)(line - text) % 10);
            cJSON_ReplaceItemInObject(o, "test_time", cJSON_CreateString(when));
            if (k >= copies - cuda)
                cJSON_ReplaceItemInObject(o, "backends", cJSON_CreateString("CUDA"));
            if (!ins) {
                lvd_sb sql = {0};
                lvd_sb_adds(&sql, "CREATE TABLE llama_bench (");
                const cJSON *c;
                int n = 0;
                cJSON_ArrayForEach(c, o) lvd_sb_addf(&sql, "%s%s", n++ ? ", " : "", c->string);
                lvd_sb_adds(&sql, ")");
                assert_int_equal(sqlite3_exec(db, lvd_sb_str(&sql), NULL, NULL, NULL), SQLITE_OK);
                lvd_sb_free(&sql);
                lvd_sb_adds(&sql, "INSERT INTO llama_bench VALUES (?");
                for (int i = 1; i < n; i++)
                    lvd_sb_adds(&sql, ", ?");
                lvd_sb_adds(&sql, ")");
                assert_int_equal(sqlite3_prepare_v2(db, lvd_sb_str(&sql), -1, &ins, NULL), SQLITE_OK);
                lvd_sb_free(&sql);
            }
            const cJSON *c;
            int i = 1;
            cJSON_ArrayForEach(c, o)
            {
                if (cJSON_IsString(c))
                    sqlite3_bind_text(ins, i++, c->valuestring, -1, SQLITE_TRANSIENT);
                else if (cJSON_IsBool(c))
                    sqlite3_bind_int(ins, i++, cJSON_IsTrue(c));
                else
                    sqlite3_bind_double(ins, i++, c->valuedouble);
            }
            assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
            cJSON_Delete(o);
        }
    }
    sqlite3_finalize(ins);
    assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    free(text);
    free(src);
    return path;
}

static void test_sqlite_in_batches(void **state)
{
    fx *f = *state;
    /* 1 200 rows, 400 runs of 3: read in batches of 512 rows, so runs
     * straddle the batches; none is split, none lost. */
    char *db = write_bench_db(f, 400, 0);
    benchio_import_report rep;
    lvd_err err = {0};
    if (import(f, db, "b9749", &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.rows, 1200);
    assert_int_equal(rep.rows_selected, 1200);
    assert_int_equal(rep.runs_added, 400);
    assert_int_equal(rep.results_added, 1200);
    lvd_run *v;
    size_t n;
    store_run_filter flt = {.with_samples = 1};
    assert_int_equal(store_run_list(f->s, &flt, &v, &n, &err), 0);
    assert_int_equal(n, 400);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i].n_results, 3);
    store_run_list_free(v, n);
    if (import(f, db, "b9749", &rep, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(rep.runs_added, 0);
    assert_int_equal(rep.runs_skipped, 400);
    free(db);
}

static void test_sqlite_mixed_past_a_batch(void **state)
{
    fx *f = *state;
    /* The other backend's rows come after the first batches: still refused
     * whole, with every row counted, and nothing written. */
    char *db = write_bench_db(f, 400, 1);
    benchio_import_report rep;
    lvd_err err = {0};
    assert_int_equal(import(f, db, "b9749", &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_INPUT);
    assert_non_null(strstr(err.msg, "1200 results of more than one backend (CPU: 1197, CUDA: 3)"));
    store_counts c = counts(f);
    assert_int_equal(c.runs, 0);
    assert_int_equal(c.engines, 0);
    free(db);
}

static void test_refusals(void **state)
{
    fx *f = *state;
    benchio_import_report rep;
    lvd_err err = {0};
    char *json = tu_fixture(FIX "cpu-build-b9749/bench-json.stdout");
    struct {
        benchio_import_opts o;
        benchio_import_fail fail;
        const char *needle;
    } cases[] = {
        {{.engine = "x", .artifact = SHA}, BENCHIO_IMPORT_USAGE, "needs a FILE"},
        {{.file = json, .artifact = SHA}, BENCHIO_IMPORT_USAGE, "--engine NAME, or --engine-dir"},
        {{.file = json, .engine_dir = "/e", .artifact = SHA}, BENCHIO_IMPORT_USAGE, "needs --build"},
        {{.file = json, .engine = "x"}, BENCHIO_IMPORT_USAGE, "--model M.gguf, or --artifact"},
        {{.file = json, .engine = "x", .artifact = SHA, .model = "m.gguf"}, BENCHIO_IMPORT_USAGE, "--artifact"},
        {{.file = json, .engine = "x", .artifact = "0A98"}, BENCHIO_IMPORT_USAGE, "not a SHA-256"},
        {{.file = json, .engine = "x", .artifact = SHA}, BENCHIO_IMPORT_USAGE, "no engine named 'x'"},
        {{.file = "/nonexistent/out.json", .engine = "x", .artifact = SHA}, BENCHIO_IMPORT_INPUT, "/nonexistent/out.json"},
        {{.file = json, .engine_dir = "/e/b9800", .build = "b9800", .artifact = SHA}, BENCHIO_IMPORT_INPUT,
         "reports build b9749 (d32676d77), but engine 'b9800' is build b9800"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        err.msg[0] = '\0';
        assert_int_equal(benchio_import_file(f->s, &cases[i].o, &rep, &err), -1);
        if (rep.fail != cases[i].fail || !strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: fail %d, '%s'", i, rep.fail, err.msg);
    }
    store_counts c = counts(f);
    assert_int_equal(c.runs + c.engines + c.artifacts, 0);

    /* A directory registered under one build cannot be imported as another. */
    assert_int_equal(import(f, FIX "cpu-build-b9749/bench-json.stdout", "b9749", &rep, &err), 0);
    assert_int_equal(import(f, FIX "gpu-h200/bench-cuda-dense-ngl8.jsonl", "cuda-local", &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_USAGE);
    assert_non_null(strstr(err.msg, "registered as engine 'b9749' with build b9749, not cuda-local"));

    /* Files mixing models or builds, and rows without a test_time. */
    size_t n;
    char *a = tu_read(json, &n);
    char *mixed = lvd_xasprintf("%s/mixed.jsonl", f->dir);
    char *jl = tu_fixture(FIX "cpu-build-b9749/bench-jsonl.stdout");
    char *l = tu_read(jl, NULL);
    char *moe = tu_fixture(FIX "cpu-build-b9749/bench-moe-ncmoe.stdout");
    char *m = tu_read(moe, NULL);
    char *both = lvd_xasprintf("%s%s", l, m);
    tu_write_str(mixed, both);
    assert_int_equal(import(f, mixed, "b9749", &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_INPUT);
    assert_non_null(strstr(err.msg, "more than one model"));
    char *builds = lvd_xstrdup(l);
    memcpy(strrchr(builds, '{') + strlen("{\"build_commit\": \""), "e", 1);
    tu_write_str(mixed, builds);
    assert_int_equal(import(f, mixed, "b9749", &rep, &err), -1);
    assert_non_null(strstr(err.msg, "more than one build"));
    tu_write_str(mixed, "{\"n_prompt\": 1, \"n_gen\": 0, \"avg_ts\": 5}\n");
    assert_int_equal(import(f, mixed, "b9749", &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_INPUT);
    assert_non_null(strstr(err.msg, "no readable test_time"));
    /* An SQLite database that is not llama-bench's. */
    char *db_path = lvd_xasprintf("%s/other.sqlite", f->dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE notes (x TEXT)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(import(f, db_path, "b9749", &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_INPUT);
    assert_non_null(strstr(err.msg, "not a llama-bench database"));
    assert_non_null(strstr(err.msg, db_path));
    free(db_path);
    free(builds);
    free(both);
    free(m);
    free(moe);
    free(l);
    free(jl);
    free(mixed);
    free(a);
    free(json);
}

/* Imports file into session (NULL: the default) as engine `name` in DIR/engine/name. */
static void import_as(fx *f, const char *file, const char *name, const char *session, benchio_import_report *rep)
{
    char *path = tu_fixture(file);
    char *dir = lvd_xasprintf("%s/engine/%s", f->dir, name);
    benchio_import_opts o = {.file = path, .engine_dir = dir, .engine = name, .build = "b9749", .artifact = SHA,
                           .host = "h200", .session = session};
    lvd_err err = {0};
    if (benchio_import_file(f->s, &o, rep, &err))
        fail_msg("%s: %s", file, err.msg);
    free(dir);
    free(path);
}

static size_t runs_in(fx *f, const char *session)
{
    store_run_filter q = {.session = session};
    lvd_run *v;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(store_run_list(f->s, &q, &v, &n, &err), 0);
    store_run_list_free(v, n);
    return n;
}

static void test_shared_session(void **state)
{
    fx *f = *state;
    benchio_import_report rep;
    /* Three engines' captures in one session, as one lvd bench would record them. */
    import_as(f, FIX "gpu-h200/bench-cpu-dense.jsonl", "cpu", "h200-2026-11-30", &rep);
    assert_int_equal(rep.runs_added, 1);
    import_as(f, FIX "gpu-h200/bench-cuda-dense-ngl99.jsonl", "cuda", "h200-2026-11-30", &rep);
    assert_int_equal(rep.runs_added, 2);
    import_as(f, FIX "gpu-h200/bench-vulkan-dense-ngl99.jsonl", "vulkan", NULL, &rep);
    assert_int_equal(rep.runs_added, 2);
    assert_int_equal(runs_in(f, "h200-2026-11-30"), 3);
    assert_int_equal(runs_in(f, "import:bench-vulkan-dense-ngl99.jsonl"), 2);
    /* Again, into the same session or another: nothing is added, and a run
     * stays in the session it was first imported into (the report says which). */
    import_as(f, FIX "gpu-h200/bench-cuda-dense-ngl99.jsonl", "cuda", "h200-2026-11-30", &rep);
    assert_int_equal(rep.runs_added, 0);
    assert_int_equal(rep.runs_skipped, 2);
    assert_string_equal(rep.skipped_session, "");
    import_as(f, FIX "gpu-h200/bench-vulkan-dense-ngl99.jsonl", "vulkan", "h200-2026-11-30", &rep);
    assert_int_equal(rep.runs_added, 0);
    assert_int_equal(rep.runs_skipped, 2);
    assert_string_equal(rep.skipped_session, "import:bench-vulkan-dense-ngl99.jsonl");
    assert_int_equal(runs_in(f, "h200-2026-11-30"), 3);
    assert_int_equal(counts(f).runs, 5);
    /* A session name must be a name. */
    char *path = tu_fixture(FIX "gpu-h200/bench-cpu-dense.jsonl");
    benchio_import_opts o = {.file = path, .engine = "cpu", .artifact = SHA, .session = ""};
    lvd_err err = {0};
    assert_int_equal(benchio_import_file(f->s, &o, &rep, &err), -1);
    assert_int_equal(rep.fail, BENCHIO_IMPORT_USAGE);
    assert_non_null(strstr(err.msg, "--session"));
    free(path);
}

/* The result of test `test` in the run with fa (0/1) among v[0..n). */
static const lvd_result *result_of(const lvd_run *v, size_t n, int fa, const char *test)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < v[i].n_results; j++)
            if (v[i].params.fa == fa && !strcmp(v[i].results[j].test, test))
                return &v[i].results[j];
    fail_msg("no %s with fa %d", test, fa);
    return NULL;
}

static void expect_flags(const lvd_result *r, const char *want)
{
    assert_int_equal(r->n, strlen(want));
    for (size_t k = 0; k < r->n; k++)
        if (r->warmup[k] != (want[k] == '1'))
            fail_msg("%s: sample %zu (%.1f t/s) flagged %d, want %s", r->test, k, r->ts[k], r->warmup[k], want);
}

static void test_warmup_flags(void **state)
{
    fx *f = *state;
    benchio_import_report rep;
    import_as(f, FIX "gpu-h200/bench-cuda-dense-ngl99.jsonl", "cuda", "s", &rep);
    assert_int_equal(rep.warmup_flagged, 2);
    import_as(f, FIX "gpu-h200/bench-vulkan-dense-ngl99.jsonl", "vulkan", "s", &rep);
    assert_int_equal(rep.warmup_flagged, 3);
    import_as(f, FIX "gpu-h200/bench-cpu-dense.jsonl", "cpu", "s", &rep);
    assert_int_equal(rep.warmup_flagged, 0);
    store_run_filter q = {.session = "s", .with_samples = 1};
    lvd_run *v;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(store_run_list(f->s, &q, &v, &n, &err), 0);
    assert_int_equal(n, 5);
    /* the runs of each engine (copies of the records, owned by v) */
    lvd_run *cr = lvd_xcalloc(n, sizeof *cr), *vr = lvd_xcalloc(n, sizeof *vr);
    size_t ncr = 0, nvr = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(v[i].binary, "/cuda/"))
            cr[ncr++] = v[i];
        else if (strstr(v[i].binary, "/vulkan/"))
            vr[nvr++] = v[i];
    }
    /* CUDA: the cold first pp512 repetition of each arm (34431.6 before
     * ~59.9k; 49305.8 before ~85.4k), nothing of tg (805.7 before ~812). */
    expect_flags(result_of(cr, ncr, 0, "pp512"), "10000");
    expect_flags(result_of(cr, ncr, 1, "pp512"), "10000");
    expect_flags(result_of(cr, ncr, 0, "tg128"), "00000");
    expect_flags(result_of(cr, ncr, 1, "tg128"), "00000");
    /* Vulkan fa 0: the three-repetition pipeline ramp (4236, 5349, 6126 before 17412, 17478). */
    expect_flags(result_of(vr, nvr, 0, "pp512"), "11100");
    expect_flags(result_of(vr, nvr, 1, "tg128"), "00000");
    /* Exactly what the bench runner's parse + flag gives for the same output. */
    char *path = tu_fixture(FIX "gpu-h200/bench-vulkan-dense-ngl99.jsonl");
    size_t len;
    char *text = tu_read(path, &len);
    lvd_run parsed = {0};
    assert_int_equal(benchio_parse_output(text, len, path, &parsed, &err), 0);
    for (size_t i = 0; i < parsed.n_results; i++) {
        lvd_result *x = &parsed.results[i];
        benchio_result_flag_warmup(x);
        const lvd_result *stored = result_of(vr, nvr, x->rep_fa, x->test);
        assert_int_equal(stored->n, x->n);
        assert_memory_equal(stored->warmup, x->warmup, x->n);
    }
    lvd_run_free(&parsed);
    free(text);
    free(path);
    free(cr);
    free(vr);
    store_run_list_free(v, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_groups_and_keys, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_repeated_test_starts_a_run, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_all_or_nothing, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_refusals, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_sqlite_in_batches, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_sqlite_mixed_past_a_batch, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_shared_session, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_warmup_flags, tu_store_setup, tu_store_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
