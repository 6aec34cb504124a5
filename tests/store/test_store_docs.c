/* test_store_docs.c: schema step 17 (store/store_docs.h): a verdict's
 * fingerprint stored once however many verdicts share it, a verdict's
 * statistics and a pin decision's details read back byte for byte through
 * their packed form (and through the fallback copy), packed on SQLite and
 * smaller there, a result's reported object stored without the test sizes
 * its columns hold and read back whole, and migration 17 converting a store
 * of schema 16 with rows that read the same after. Runs again on PostgreSQL (_pg), where
 * documents stay text. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/fleetdb.h"
#include "store/schema.h"
#include "store/store_docs.h"

#include <stdlib.h>
#include <string.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* The first value of sql on s, an integer (fails the test on error). */
static int64_t sql_int(store *s, const char *sql)
{
    store_stmt *st;
    lvd_err err = {0};
    if (store_prepare(s, sql, &st, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t v = store_col_i64(st, 0);
    store_finalize(st);
    return v;
}

/* A document shaped like a verdict's statistics or a pin decision's
 * details: n objects with the same keys, numbers to 17 digits (malloc'd). */
static char *big_doc(int n, const char *what)
{
    lvd_sb sb = {0};
    lvd_sb_addf(&sb, "{\"%s\":[", what);
    for (int i = 0; i < n; i++)
        lvd_sb_addf(&sb, "%s{\"arm_key\":\"dev=CUDA0 ngl=99 fa=%d ub=512\",\"ratio\":%.17g,\"ci\":[%.17g,%.17g],"
                         "\"why\":\"tie: the whole CI lies inside the tie band \\u00e9\"}",
                    i ? "," : "", i % 2, 1.0 + i / 3.0, 0.99 - i / 7.0, 1.01 + i / 11.0);
    lvd_sb_adds(&sb, "]}");
    return lvd_sb_detach(&sb);
}

static lvd_verdict verdict_of(int64_t at, const char *fingerprint, const char *stats)
{
    lvd_verdict v = {.artifact = SHA_A, .host = "h", .decided_at = at, .objective = "tg", .rule = "win",
                     .fingerprint = (char *)fingerprint, .stats_json = (char *)stats};
    lvd_params_init(&v.params);
    return v;
}

static void put_artifact(store *s)
{
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA_A, .size = 1};
    assert_int_equal(store_artifact_put(s, &a, &err), 0);
}

/* Two verdicts with one fingerprint add one row; a third, another, adds one more. */
static void test_fingerprint_once(void **state)
{
    tu_storefx *f = *state;
    lvd_err err = {0};
    put_artifact(f->s);
    char *fp = big_doc(20, "engines");
    lvd_verdict v1 = verdict_of(100, fp, NULL), v2 = verdict_of(200, fp, NULL), v3 = verdict_of(300, "[]", NULL);
    assert_int_equal(store_verdict_put(f->s, &v1, &err), 0);
    assert_int_equal(sql_int(f->s, "SELECT count(*) FROM verdict_fingerprints"), 1);
    assert_int_equal(store_verdict_put(f->s, &v2, &err), 0);
    assert_int_equal(sql_int(f->s, "SELECT count(*) FROM verdict_fingerprints"), 1);
    assert_int_equal(store_verdict_put(f->s, &v3, &err), 0);
    assert_int_equal(sql_int(f->s, "SELECT count(*) FROM verdict_fingerprints"), 2);
    lvd_verdict *v;
    size_t n;
    assert_int_equal(store_verdict_list(f->s, SHA_A, "h", 0, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(v[0].fingerprint, "[]");
    assert_string_equal(v[1].fingerprint, fp);
    assert_string_equal(v[2].fingerprint, fp);
    store_verdict_list_free(v, n);
    free(fp);
}

/* The verdict's documents as read from s equal the ones written. */
static void assert_verdict_reads(store *s, const char *fp, const char *stats)
{
    lvd_verdict *got;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(store_verdict_list(s, SHA_A, "h", 1, &got, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(got[0].fingerprint, fp);
    assert_string_equal(got[0].stats_json, stats);
    store_verdict_list_free(got, n);
}

/* A verdict and a pin decision, large and small, through the compact form
 * and back: equal to what was written, and (SQLite) packed smaller. */
static void test_roundtrip(void **state)
{
    tu_storefx *f = *state;
    lvd_err err = {0};
    put_artifact(f->s);
    char *stats = big_doc(40, "arms"), *details = big_doc(120, "comparisons"), *fp = big_doc(5, "engines");
    lvd_verdict v = verdict_of(100, fp, stats);
    assert_int_equal(store_verdict_put(f->s, &v, &err), 0);
    assert_verdict_reads(f->s, fp, stats);
    lvd_pin_decision d1 = {.decided_at = 100, .pinned_build = "b9749", .candidate_build = "b9800",
                           .decision = "keep", .rule = "regression", .details_json = details};
    lvd_pin_decision d2 = {.decided_at = 200, .pinned_build = "b9749", .candidate_build = "b9800",
                           .decision = "keep", .rule = "tie", .details_json = "{\"short\":1}"};
    assert_int_equal(store_pin_decision_put(f->s, &d1, &err), 0);
    assert_int_equal(store_pin_decision_put(f->s, &d2, &err), 0);
    lvd_pin_decision *got;
    size_t n;
    assert_int_equal(store_pin_decision_list(f->s, 0, &got, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(got[0].details_json, "{\"short\":1}");
    assert_string_equal(got[1].details_json, details);
    store_pin_decision_list_free(got, n);
    if (!tu_pg()) { /* packed where SQLite holds it; the short one stays text */
        assert_int_equal(sql_int(f->s, "SELECT count(*) FROM verdicts WHERE typeof(stats_json) = 'blob'"), 1);
        assert_true(sql_int(f->s, "SELECT length(stats_json) FROM verdicts") * 3 < (int64_t)strlen(stats));
        assert_true(sql_int(f->s, "SELECT max(length(details_json)) FROM pin_decisions") * 3 <
                    (int64_t)strlen(details));
        assert_int_equal(sql_int(f->s, "SELECT count(*) FROM pin_decisions WHERE typeof(details_json) = 'text'"), 1);
    }
    /* the fallback copy (SQLite) of a store of either kind reads the same */
    char *copy_path = lvd_xasprintf("%s/fallback.db", f->dir);
    if (store_fallback_refresh(f->s, copy_path, "h", &err))
        fail_msg("%s", err.msg);
    store *copy = tu_store_at(copy_path);
    assert_verdict_reads(copy, fp, stats);
    store_close(copy);
    free(copy_path);
    free(stats);
    free(details);
    free(fp);
}

#define HEAD "{\"build_commit\":\"abc\",\"model_type\":\"llama 1B\""
#define SIZED ",\"n_prompt\":512,\"n_gen\":0,\"n_depth\":0,\"avg_ts\":400.25}"
#define OTHER ",\"n_prompt\":512,\"n_gen\":0,\"n_depth\":4,\"avg_ts\":1.5}" /* not the columns' n_depth 0 */

/* One run of two pp512 results (sizes 512, 0, 0), reported as HEAD SIZED
 * and HEAD OTHER, recorded in s. */
static void put_sized_run(store *s)
{
    lvd_err err = {0};
    lvd_run r;
    memset(&r, 0, sizeof r);
    strcpy(r.artifact, SHA_A);
    r.engine_id = tu_engine_put(s, "cpu", NULL);
    r.binary = lvd_xstrdup("/e/cpu/llama-bench");
    r.build = lvd_xstrdup("b9749");
    r.host = lvd_xstrdup("h");
    r.arm_key = lvd_xstrdup("k");
    lvd_params_init(&r.params);
    strcpy(r.status, "ok");
    r.started_at = 1;
    strcpy(r.source, "import");
    r.n_results = 2;
    r.results = lvd_xcalloc(2, sizeof *r.results);
    for (int i = 0; i < 2; i++) {
        strcpy(r.results[i].test, "pp512");
        r.results[i].n_prompt = 512;
        r.results[i].reported_json = lvd_xstrdup(i ? HEAD OTHER : HEAD SIZED);
    }
    if (store_run_put(s, &r, &err))
        fail_msg("%s", err.msg);
    lvd_run_free(&r);
}

/* The results of s's runs read back as HEAD SIZED and HEAD OTHER. */
static void assert_sized_reads(store *s)
{
    store_run_filter rf = {.with_samples = 1};
    lvd_run *v;
    size_t n;
    lvd_err err = {0};
    if (store_run_list(s, &rf, &v, &n, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].n_results, 2);
    assert_string_equal(v[0].results[0].reported_json, HEAD SIZED);
    assert_string_equal(v[0].results[1].reported_json, HEAD OTHER);
    store_run_list_free(v, n);
}

/* The test sizes a result's columns hold are left out of its reported tail
 * and put back on reading; sizes that differ from the columns stay. */
static void test_reported_sizes(void **state)
{
    tu_storefx *f = *state;
    put_artifact(f->s);
    put_sized_run(f->s);
    assert_sized_reads(f->s);
    assert_int_equal(sql_int(f->s, "SELECT count(*) FROM results WHERE reported_json = ',\"avg_ts\":400.25}'"), 1);
    assert_int_equal(sql_int(f->s, "SELECT count(*) FROM results WHERE reported_json = '" OTHER "'"), 1);
}

/* Packing refuses what is not a packed document. */
static void test_unpack_refuses(void **state)
{
    (void)state;
    size_t len = 0;
    assert_null(store_doc_pack("short", &len));
    char *text = big_doc(10, "x");
    unsigned char *p = store_doc_pack(text, &len);
    assert_non_null(p);
    char *back = store_doc_unpack(p, len);
    assert_string_equal(back, text);
    free(back);
    assert_null(store_doc_unpack(p, len - 1)); /* cut short */
    p[0] = 'x';
    assert_null(store_doc_unpack(p, len)); /* not tagged */
    p[0] = 'z';
    p[1] ^= 1;
    assert_null(store_doc_unpack(p, len)); /* another length */
    p[1] ^= 1;
    p[4] = 0xff; /* a length of 4 GB from a few bytes (refused without allocating it) */
    assert_null(store_doc_unpack(p, len));
    free(p);
    free(text);
}

/* A store of schema 16 with two verdicts sharing one fingerprint, long
 * statistics and a long pin decision: migration 17 keeps one fingerprint
 * row, packs both documents, and every row reads as before. */
static void test_migrate_17(void **state)
{
    (void)state;
    tu_sqlite_only();
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/v16.db", dir);
    char *stats = big_doc(40, "arms"), *details = big_doc(120, "comparisons"), *fp = big_doc(5, "engines");
    lvd_sb sql = {0};
    for (size_t v = 1; v <= 16; v++) {
        char *step = store_schema_sql(v);
        lvd_sb_adds(&sql, step);
        free(step);
    }
    lvd_sb_addf(&sql, "PRAGMA user_version = 16;"
                      "INSERT INTO artifacts (sha256, size, created_at) VALUES ('" SHA_A "', 1, 1);"
                      "INSERT INTO verdicts (artifact, host, decided_at, objective, rule, fingerprint, stats_json)"
                      " VALUES ('" SHA_A "', 'h', 100, 'pp', 'win', '%s', '%s'),"
                      " ('" SHA_A "', 'h', 200, 'tg', 'win', '%s', '%s'),"
                      " ('" SHA_A "', 'h', 50, 'w', 'none', NULL, '{}');"
                      "INSERT INTO pin_decisions (decided_at, pinned_build, decision, rule, details_json)"
                      " VALUES (100, 'b9749', 'keep', 'regression', '%s');"
                      "INSERT INTO engines (id, name, dir, build, origin, created_at, host)"
                      " VALUES (1, 'cpu', '/e/cpu', 'b9749', 'registered', 1, 'h');"
                      "INSERT INTO runs (id, artifact, engine_id, binary, build, host, arm_key, status, started_at,"
                      " source, uid) VALUES (1, '" SHA_A "', 1, '/e/cpu/llama-bench', 'b9749', 'h', 'k', 'ok', 1,"
                      " 'import', 'u1');"
                      "INSERT INTO reported_heads (id, head) VALUES (1, '" HEAD "');"
                      "INSERT INTO results (run_id, test, n_prompt, n_gen, n_depth, reported_json, reported_head)"
                      " VALUES (1, 'pp512', 512, 0, 0, '" SIZED "', 1), (1, 'pp512', 512, 0, 0, '" OTHER "', 1);",
                fp, stats, fp, stats, details);
    tu_sql(path, lvd_sb_str(&sql));
    lvd_sb_free(&sql);
    store *s = tu_store_at(path);
    assert_verdict_reads(s, fp, stats);
    lvd_verdict *v;
    size_t n;
    lvd_err err = {0};
    assert_int_equal(store_verdict_list(s, SHA_A, "h", 0, &v, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(v[1].fingerprint, fp);
    assert_string_equal(v[1].stats_json, stats);
    assert_null(v[2].fingerprint);
    assert_string_equal(v[2].stats_json, "{}");
    store_verdict_list_free(v, n);
    lvd_pin_decision *d;
    assert_int_equal(store_pin_decision_list(s, 0, &d, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_string_equal(d[0].details_json, details);
    store_pin_decision_list_free(d, n);
    assert_sized_reads(s);
    store_close(s);
    assert_int_equal(tu_sql_int(path, "PRAGMA user_version"), (int64_t)store_schema_version());
    assert_int_equal(tu_sql_int(path, "SELECT count(*) FROM results WHERE reported_json = ',\"avg_ts\":400.25}'"), 1);
    assert_int_equal(tu_sql_int(path, "SELECT count(*) FROM verdict_fingerprints"), 1);
    assert_int_equal(tu_sql_int(path, "SELECT count(*) FROM verdicts WHERE typeof(stats_json) = 'blob'"), 2);
    assert_int_equal(tu_sql_int(path, "SELECT count(*) FROM pin_decisions WHERE typeof(details_json) = 'blob'"), 1);
    free(stats);
    free(details);
    free(fp);
    free(path);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_fingerprint_once, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_roundtrip, tu_store_setup, tu_store_teardown),
        cmocka_unit_test_setup_teardown(test_reported_sizes, tu_store_setup, tu_store_teardown),
        cmocka_unit_test(test_unpack_refuses),
        cmocka_unit_test(test_migrate_17),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
