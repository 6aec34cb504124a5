/* test_store_samples.c: the packed samples of a result (store/store_samples.h):
 * the text read back bit for bit (its t/s values as strtod reads them), its size on llama-bench's numbers, bad text
 * refused, the totals prices read, and migration 15 converting a store with
 * one samples row per repetition and whole reported objects (their shared
 * head stored once, for the runs recorded after it too), on SQLite and, in
 * the _pg twin, on PostgreSQL (its own step 15, store/schema_pg.c); step 16
 * then files the engine under its runs' host. */
#include "tests/support/testutil.h"

#include "store/schema.h"
#include "store/schema_pg.h"
#include "store/store.h"
#include "store/store_samples.h"

#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static void fill(lvd_result *x, const char *test, int n_prompt, int n_gen, size_t n)
{
    memset(x, 0, sizeof *x);
    snprintf(x->test, sizeof x->test, "%s", test);
    x->n_prompt = n_prompt;
    x->n_gen = n_gen;
    x->n = n;
    x->ns = lvd_xcalloc(n, sizeof *x->ns);
    x->ts = lvd_xcalloc(n, sizeof *x->ts);
    x->warmup = lvd_xcalloc(n, sizeof *x->warmup);
}

/* Fails unless b holds a's samples exactly (the same bits of every t/s). */
static void assert_same_samples(const lvd_result *a, const lvd_result *b)
{
    assert_int_equal(b->n, a->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(b->ns[i], a->ns[i]);
        assert_memory_equal(&b->ts[i], &a->ts[i], sizeof a->ts[i]);
        assert_int_equal(b->warmup[i], a->warmup ? a->warmup[i] : 0);
    }
}

static void roundtrip(const lvd_result *a)
{
    lvd_err err = {0};
    char *text = store_samples_encode("s.db", a, &err);
    assert_non_null(text);
    lvd_result b = {.id = 1, .n_prompt = a->n_prompt, .n_gen = a->n_gen};
    if (store_samples_decode("s.db", text, &b, &err))
        fail_msg("%s: %s", text, err.msg);
    assert_same_samples(a, &b);
    lvd_result_free(&b);
    free(text);
}

/* Values that stress the shortest decimal and the ns prediction: tiny,
 * huge, subnormal, 0 t/s, unknown and 0 ns, no tokens, warm-ups; then many
 * random ones. */
static void test_roundtrip_exact(void **state)
{
    (void)state;
    static const double ts[] = {0.1, 7735.96, 85123.456, 1e-300, 5e-324, 1.7976931348623157e308,
                                0.0, 1.0 / 3.0, 2.5e-5, 123456789.123456789, 49.999999999999993};
    static const int64_t ns[] = {16546110, -1, 0, 1, 9000000000000000000LL, 1282787749, 3, -1, 5, 77, 2560000000LL};
    lvd_result a;
    fill(&a, "tg128", 0, 128, LVD_ARRAY_LEN(ts));
    for (size_t i = 0; i < a.n; i++) {
        a.ts[i] = ts[i];
        a.ns[i] = ns[i];
        a.warmup[i] = i % 3 == 0;
    }
    roundtrip(&a);
    a.n_gen = 0; /* no tokens: no prediction */
    roundtrip(&a);
    lvd_result_free(&a);

    srand(15);
    fill(&a, "pp512", 512, 0, 500);
    for (size_t i = 0; i < a.n; i++) {
        a.ts[i] = ldexp((double)rand() / RAND_MAX + 0.5, rand() % 40 - 10);
        a.ns[i] = (int64_t)rand() * rand();
        a.warmup[i] = rand() % 7 == 0;
    }
    roundtrip(&a);
    free(a.warmup); /* a result without warm-up flags reads back as none */
    a.warmup = NULL;
    roundtrip(&a);
    lvd_result_free(&a);
}

/* llama-bench derives t/s from ns and prints 6 digits: a sample packs to
 * the difference from the prediction and those digits. */
static void test_compact(void **state)
{
    (void)state;
    lvd_result a;
    fill(&a, "tg128", 0, 128, 2);
    a.ns[0] = 16546110;
    a.ts[0] = 7735.96;
    a.ns[1] = 181009554;
    a.ts[1] = 707.143;
    a.warmup[0] = 1;
    lvd_err err = {0};
    char *text = store_samples_encode("s.db", &a, &err);
    int64_t d0 = 16546110 - store_samples_predict(128, 7735.96);
    int64_t d1 = 181009554 - store_samples_predict(128, 707.143);
    char want[64];
    snprintf(want, sizeof want, "*%lld:7735.96 %lld:707.143", (long long)d0, (long long)d1);
    assert_string_equal(text, want);
    assert_true(strlen(text) <= 26);
    free(text);
    lvd_result_free(&a);

    fill(&a, "pp512", 512, 0, 0);
    text = store_samples_encode("s.db", &a, &err);
    assert_string_equal(text, "");
    free(text);
    a.n = 1; /* a t/s that is not finite is refused */
    free(a.ts);
    a.ts = lvd_xcalloc(1, sizeof *a.ts);
    a.ts[0] = NAN;
    assert_null(store_samples_encode("s.db", &a, &err));
    assert_non_null(strstr(err.msg, "pp512 sample 0"));
    lvd_result_free(&a);
}

/* The t/s reader gives strtod's double, bit for bit, and refuses what
 * strtod leaves unread: on decimals of every length (its own fast path
 * takes up to 15 significant digits and powers of ten to 22, strtod the
 * rest), signs, exponents, leading and trailing zeros. */
static void test_reads_as_strtod(void **state)
{
    (void)state;
    static const char *const fixed[] = {"0", "-0", "0.0", "00012.5000", "5.", ".5", "-.25", "1e6", "1e+06",
                                        "1.5e-07", "2E5", "123456789012345", "1234567890123456",
                                        "0.000000000000000000001", "1e22", "1e23", "1e-22", "1e-23",
                                        "9007199254740993", "4.9406564584124654e-324", "1.7976931348623157e308",
                                        "1e", "1e+", "--1", "+1", "1.2.3", "inf", "nan", "0x10", "12a"};
    char buf[64];
    uint64_t seed = 42;
    for (size_t i = 0; i < LVD_ARRAY_LEN(fixed) + 200000; i++) {
        const char *num = buf;
        if (i < LVD_ARRAY_LEN(fixed))
            num = fixed[i];
        else { /* random digits, a point somewhere, sometimes an exponent */
            size_t k = 0;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t r = seed >> 11;
            if (r & 1)
                buf[k++] = '-';
            int len = 1 + (int)((r >> 1) % 18), point = (int)((r >> 6) % (unsigned)(len + 2)) - 1;
            for (int d = 0; d < len; d++) {
                if (d == point)
                    buf[k++] = '.';
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                buf[k++] = (char)('0' + (seed >> 33) % 10);
            }
            if ((r >> 12) % 4 == 0)
                k += (size_t)snprintf(buf + k, sizeof buf - k, "e%d", (int)((r >> 14) % 61) - 30);
            buf[k] = '\0';
        }
        char *end;
        double want = strtod(num, &end);
        int ok = end != num && !*end && isfinite(want); /* inf, nan: never a stored t/s */
        char *text = lvd_xasprintf(":%s", num);
        lvd_result x = {.id = 1};
        lvd_err err = {{0}};
        int rc = store_samples_decode("s.db", text, &x, &err);
        if (rc != (ok ? 0 : -1))
            fail_msg("\"%s\": decode %d, strtod %s", num, rc, ok ? "reads it" : "stops early");
        if (ok && memcmp(&x.ts[0], &want, sizeof want))
            fail_msg("\"%s\": read %.17g, strtod %.17g", num, x.ts[0], want);
        lvd_result_free(&x);
        free(text);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {"12",     "x:5",     "1:",      "1:5x",     "=-3:5",    "1:5  2:6",
                                      ":5 *:",  "1:inf",   "=2:nan",  "3:1e999", /* t/s not finite */
                                      "-4:1e+300" /* ns below zero */,
                                      "=9223372036854775808:5", "99999999999999999999:5" /* past int64 */,
                                      "-:5",    "*= 5:2",  "=5.5:2"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(bad); i++) {
        lvd_result x = {.id = 7, .n_gen = 128};
        lvd_err err = {0};
        if (store_samples_decode("/s/store.db", bad[i], &x, &err) != -1)
            fail_msg("accepted \"%s\"", bad[i]);
        assert_non_null(strstr(err.msg, "/s/store.db: result 7: malformed samples"));
        lvd_result_free(&x);
    }
    lvd_result x = {0};
    lvd_err err = {0};
    assert_int_equal(store_samples_decode("s", "=5:2 *:3 4:1e+300", &x, &err), 0);
    assert_int_equal(x.n, 3);
    assert_int_equal(x.ns[0], 5);
    assert_int_equal(x.ns[1], -1);
    assert_int_equal(x.warmup[1], 1);
    assert_int_equal(x.ns[2], 4); /* no tokens: the difference is the value */
    lvd_result_free(&x);
    lvd_result big = {0};
    assert_int_equal(store_samples_decode("s", "=9223372036854775807:2 +7:3", &big, &err), 0);
    assert_true(big.ns[0] == INT64_MAX); /* the largest duration reads back whole */
    assert_int_equal(big.ns[1], 7);
    lvd_result_free(&big);
}

static void test_totals(void **state)
{
    (void)state;
    lvd_err err = {0};
    store_sample_totals t;
    /* ns 10 (warm-up), unknown, 30, 20 (t/s 0: not kept) */
    assert_int_equal(store_samples_totals("s", "*=10:1 :2 =30:3 =20:0", 128, &t, &err), 0);
    assert_int_equal(t.n, 4);
    assert_int_equal(t.ns_sum, 60);
    assert_int_equal(t.ns_max, 30);
    assert_int_equal(t.warmups, 1);
    assert_int_equal(t.kept_ns, 30);
    assert_int_equal(store_samples_totals("s", "", 128, &t, &err), 0);
    assert_int_equal(t.n, 0);
    assert_int_equal(store_samples_totals("s", "oops", 128, &t, &err), -1);
}

/* A llama-bench object's head (what it ran with) and two tests' tails. */
#define HEAD "{\"build_commit\":\"d32676d77\",\"n_threads\":8,\"devices\":\"auto\""
#define TAIL1 ",\"n_prompt\":0,\"n_gen\":128,\"avg_ts\":50.5}"
#define TAIL2 ",\"n_prompt\":512,\"n_gen\":0,\"avg_ts\":400.25}"

/* The schema of version `to` as each backend built it then: SQLite every
 * step, PostgreSQL its base and its later steps. */
static void schema_upto(const char *spec, size_t to, lvd_sb *sql)
{
    if (!store_is_remote(spec)) {
        for (size_t v = 1; v <= to; v++)
            lvd_sb_adds(sql, store_schema_step(v));
        lvd_sb_addf(sql, "PRAGMA user_version = %zu;", to);
        return;
    }
    char *base = store_pg_schema_base();
    lvd_sb_adds(sql, base);
    free(base);
    for (size_t v = STORE_PG_BASE_VERSION + 1; v <= to; v++) {
        char *step = store_pg_schema_step(v);
        lvd_sb_adds(sql, step);
        lvd_sb_adds(sql, ";");
        free(step);
    }
    lvd_sb_addf(sql, "UPDATE lvd_schema SET version = %zu;", to);
}

/* The store made of sql (freed), opened: migrated to this schema. */
static store *migrated(const char *path, lvd_sb *sql)
{
    tu_raw_exec(path, lvd_sb_str(sql));
    lvd_sb_free(sql);
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err))
        fail_msg("%s", err.msg);
    return s;
}

/* Every run of s with its results and samples. */
static lvd_run *runs_of(store *s, size_t *n)
{
    store_run_filter f = {.with_samples = 1};
    lvd_run *v;
    lvd_err err = {0};
    if (store_run_list(s, &f, &v, n, &err))
        fail_msg("%s", err.msg);
    return v;
}

/* The reported objects read back byte for byte, their shared head stored
 * once: after migration 15 and for a run recorded after it. */
static void assert_reported(store *s, const char *path)
{
    size_t n;
    lvd_run *v = runs_of(s, &n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(v[i].results[0].reported_json, HEAD TAIL1);
        assert_string_equal(v[i].results[1].reported_json, HEAD TAIL2);
        assert_string_equal(v[i].results[2].reported_json, "not json");
    }
    store_run_list_free(v, n);
    assert_int_equal(tu_raw_int(path, "SELECT count(*) FROM reported_heads"), 1);
    assert_int_equal(tu_raw_int(path, "SELECT count(*) FROM results WHERE reported_json LIKE '%build_commit%'"), 0);
}

/* A store of schema 14 (one samples row per repetition, inserted out of
 * order, NULL ns, warm-ups, t/s that need 17 digits): migration 15 packs
 * every result's samples in idx order, the same numbers read back, the
 * samples table is gone and the count is unchanged. */
static void test_migrate_packed(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *path = tu_store_spec(dir);
    lvd_sb sql = {0};
    schema_upto(path, 14, &sql); /* the version before step 15 packed the samples */
    lvd_sb_adds(&sql, "INSERT INTO artifacts (sha256, size, created_at) VALUES ('" SHA_A "', 1, 1);"
                      "INSERT INTO engines (id, name, dir, build, origin, created_at)"
                      " VALUES (1, 'cpu', '/e/cpu', 'b9749', 'registered', 1);"
                      "INSERT INTO runs (id, artifact, engine_id, \"binary\", build, host, arm_key, status, started_at,"
                      " source) VALUES (1, '" SHA_A "', 1, '/e/cpu/llama-bench', 'b9749', 'h', 'k', 'ok', 1, 'bench');"
                      "INSERT INTO results (id, run_id, test, n_prompt, n_gen, reported_json) VALUES"
                      " (1, 1, 'tg128', 0, 128, '" HEAD TAIL1 "'), (2, 1, 'pp512', 512, 0, '" HEAD TAIL2 "'),"
                      " (3, 1, 'pp512', 512, 0, 'not json');"
                      "INSERT INTO samples (result_id, idx, ns, ts, warmup) VALUES"
                      " (1, 2, 300, 0.1, 0), (1, 0, 100, 7735.96, 1), (1, 1, NULL, 0.30000000000000004, 0),"
                      " (2, 0, 5, 1e-300, 0), (2, 1, 6, 5e-324, 0), (2, 2, 7, 1.7976931348623157e308, 1);");
    if (store_is_remote(path)) /* the explicit ids above: the identities go on after them */
        for (const char *const *t = (const char *const[]){"engines", "runs", "results", NULL}; *t; t++)
            lvd_sb_addf(&sql, "SELECT setval(pg_get_serial_sequence('%s', 'id'), (SELECT max(id) FROM %s));", *t, *t);
    store *s = migrated(path, &sql);
    lvd_err err = {0};
    size_t n;
    lvd_run *v = runs_of(s, &n);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].n_results, 3);
    lvd_result want;
    fill(&want, "tg128", 0, 128, 3);
    const int64_t ns1[] = {100, -1, 300};
    const double ts1[] = {7735.96, 0.30000000000000004, 0.1};
    for (size_t i = 0; i < 3; i++) {
        want.ns[i] = ns1[i];
        want.ts[i] = ts1[i];
        want.warmup[i] = i == 0;
    }
    assert_same_samples(&want, &v[0].results[0]);
    const double ts2[] = {1e-300, 5e-324, 1.7976931348623157e308};
    for (size_t i = 0; i < 3; i++) {
        want.ns[i] = 5 + (int64_t)i;
        want.ts[i] = ts2[i];
        want.warmup[i] = i == 2;
    }
    assert_same_samples(&want, &v[0].results[1]);
    assert_int_equal(v[0].results[2].n, 0);
    lvd_result_free(&want);
    assert_reported(s, path);
    /* and step 16: the engine filed under the host its runs ran on, every run a uid */
    assert_int_equal(tu_raw_int(path, "SELECT count(*) FROM engines WHERE id = 1 AND host = 'h'"), 1);
    assert_int_equal(tu_raw_int(path, "SELECT count(*) FROM runs WHERE uid IS NULL OR length(uid) < 16"), 0);
    v[0].id = 0; /* the same run recorded again, after the migration: its head is shared */
    free(v[0].session);
    v[0].session = lvd_xstrdup("again");
    if (store_run_put(s, &v[0], &err))
        fail_msg("%s", err.msg);
    store_run_list_free(v, n);
    assert_reported(s, path);
    store_counts c;
    assert_int_equal(store_counts_get(s, &c, &err), 0);
    assert_int_equal(c.samples, 12); /* the migrated run and its copy */
    store_close(s);
    assert_int_equal(tu_raw_int(path, store_is_remote(path)
                                       ? "SELECT count(*) FROM information_schema.tables WHERE table_name = 'samples'"
                                       : "SELECT count(*) FROM sqlite_schema WHERE name = 'samples'"),
                     0);
    free(path);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_exact), cmocka_unit_test(test_compact),
        cmocka_unit_test(test_reads_as_strtod),
        cmocka_unit_test(test_malformed), cmocka_unit_test(test_totals),
        cmocka_unit_test(test_migrate_packed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
