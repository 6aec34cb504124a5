/* test_merge.c: stores that merge (store/mergedb.h): engines known per host
 * (two boxes, one directory, one store), a box's store merged into
 * another's twice (the second adds nothing) and back, with overlapping
 * engines, models and hosts; each row keeps its host and its engine; the
 * refusals (the store itself, a newer store, a missing file) change
 * nothing; a merge SIGKILLed midway leaves the target as it was. This
 * process is box-a (LVD_HOST); box-b's rows name their host. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/factsdb.h"
#include "store/mergedb.h"
#include "store/schema.h"
#include "store/store.h"

#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define CUDA_DIR "/opt/llama.cpp/b9749-cuda"

static store *open_store(const char *path)
{
    store *s;
    lvd_err err = {0};
    if (store_open(path, STORE_OPEN_CREATE, &s, &err))
        fail_msg("%s", err.msg);
    return s;
}

static int64_t put_engine(store *s, const char *host, const char *name, const char *dir)
{
    lvd_engine e = {.name = (char *)name, .dir = (char *)dir, .build = "b9749", .origin = "registered",
                    .host = (char *)host};
    lvd_err err = {0};
    if (store_engine_put(s, &e, &err))
        fail_msg("%s", err.msg);
    return e.id;
}

/* One ok run of host on engine_id: tg128 with n samples around ts. */
static void put_run(store *s, const char *host, int64_t engine_id, const char *artifact, double ts, size_t n,
                    int64_t started_at)
{
    lvd_result x = {.test = "tg128", .n_gen = 128, .n = n};
    x.ns = lvd_xcalloc(n, sizeof *x.ns);
    x.ts = lvd_xcalloc(n, sizeof *x.ts);
    for (size_t i = 0; i < n; i++) {
        x.ns[i] = (int64_t)(1e9 * 128 / (ts + (double)i));
        x.ts[i] = ts + (double)i;
    }
    x.energy.joules = NAN;
    lvd_run r = {.engine_id = engine_id, .binary = CUDA_DIR "/llama-bench", .build = "b9749", .host = (char *)host,
                 .session = "night-1", .arm_key = "ngl=99", .status = "ok", .source = "bench",
                 .started_at = started_at, .wall_ms = 10, .results = &x, .n_results = 1};
    snprintf(r.artifact, sizeof r.artifact, "%s", artifact);
    lvd_params_init(&r.params);
    lvd_err err = {0};
    if (store_run_put(s, &r, &err))
        fail_msg("%s", err.msg);
    free(x.ns);
    free(x.ts);
}

static void put_artifact(store *s, const char *sha)
{
    store_artifact a = {.size = 1000};
    snprintf(a.sha256, sizeof a.sha256, "%s", sha);
    lvd_err err = {0};
    if (store_artifact_put(s, &a, &err))
        fail_msg("%s", err.msg);
}

/* A box's store: its engine in CUDA_DIR (probed: one H200 or one GTX
 * 1060), a verdict, a check and a session fact of that host; runs on
 * SHA_A and, for box-b, SHA_B. */
static void fill_box(store *s, const char *host, double ts)
{
    lvd_err err = {0};
    put_artifact(s, SHA_A);
    int64_t eid = put_engine(s, host, "cuda", CUDA_DIR);
    lvd_device d = {.selector = "CUDA0", .total_mib = 8192, .free_mib = 8000, .backend = "cuda"};
    snprintf(d.name, sizeof d.name, "%s", strcmp(host, "box-a") ? "NVIDIA GeForce GTX 1060" : "NVIDIA H200");
    lvd_probe p = {.engine_id = eid, .binary = CUDA_DIR "/llama-bench", .bin_mtime_ns = 1, .bin_size = 2,
                   .probed_at = 100, .backend = "cuda", .devices = &d, .n_devices = 1};
    if (store_probe_put(s, &p, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < 3; i++)
        put_run(s, host, eid, SHA_A, ts, 5, 1000 + i);
    if (strcmp(host, "box-a")) {
        put_artifact(s, SHA_B);
        put_run(s, host, eid, SHA_B, ts, 5, 2000);
    }
    lvd_verdict v = {.artifact = SHA_A, .host = (char *)host, .decided_at = 3000, .objective = "tg",
                     .engine_id = eid, .arm_key = "ngl=99", .rule = "only-arm", .explain = "one arm"};
    lvd_params_init(&v.params);
    lvd_check c = {.artifact = SHA_A, .engine_id = eid, .device = "CUDA0", .host = (char *)host, .ran_at = 2500,
                   .status = "pass", .mean_kld = 0.001, .same_top_p = 99, .ppl = 5, .ppl_base = 5, .ppl_ratio = 1};
    char *names[] = {"driver"}, *values[] = {strcmp(host, "box-a") ? "535" : "565"};
    if (store_verdict_put(s, &v, &err) || store_check_put(s, &c, &err) ||
        store_facts_put(s, strcmp(host, "box-a") ? "night-b" : "night-a", host, names, values, 1, &err))
        fail_msg("%s", err.msg);
}

typedef struct fx {
    char *dir, *a, *b;
} fx;

static int setup(void **state)
{
    setenv("LVD_HOST", "box-a", 1);
    fx *f = lvd_xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    f->a = lvd_xasprintf("%s/a.db", f->dir);
    f->b = lvd_xasprintf("%s/b.db", f->dir);
    store *a = open_store(f->a), *b = open_store(f->b);
    fill_box(a, "box-a", 100);
    fill_box(b, "box-b", 50);
    store_close(a);
    store_close(b);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_tmpdir_free(f->dir);
    free(f->a);
    free(f->b);
    free(f);
    return 0;
}

static store_merge_counts merge(const char *into, const char *from)
{
    store *s = open_store(into);
    store_merge_counts c;
    lvd_err err = {0};
    if (store_merge(s, from, &c, &err) != STORE_MERGE_OK)
        fail_msg("%s", err.msg);
    store_close(s);
    return c;
}

static int64_t count(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Two hosts, one directory, one store: each host has its own engine, and
 * lookups by name, the list and registration are this host's. */
static void test_engines_per_host(void **state)
{
    fx *f = *state;
    store *s = open_store(f->b); /* box-b's store, opened on box-a */
    int64_t theirs = count(f->b, "SELECT id FROM engines WHERE host = 'box-b'");
    lvd_engine e;
    lvd_err err = {0};
    assert_int_equal(store_engine_by_name(s, "cuda", &e, &err), 1); /* box-b's is not this host's */
    lvd_probe p; /* nor is box-b's probe of the same path, size and mtime */
    assert_int_equal(store_probe_fresh(s, CUDA_DIR "/llama-bench", "", 1, 2, 200, 1000, &p, &err), 1);
    int64_t ours = put_engine(s, NULL, "cuda", CUDA_DIR);
    assert_true(ours != theirs);
    assert_int_equal(store_engine_by_name(s, "cuda", &e, &err), 0);
    assert_int_equal(e.id, ours);
    assert_string_equal(e.host, "box-a");
    lvd_engine_free(&e);
    p = (lvd_probe){.engine_id = ours, .binary = CUDA_DIR "/llama-bench", .bin_mtime_ns = 1, .bin_size = 2,
                    .probed_at = 150, .backend = "cuda"};
    assert_int_equal(store_probe_put(s, &p, &err), 0);
    lvd_probe got;
    assert_int_equal(store_probe_fresh(s, CUDA_DIR "/llama-bench", "", 1, 2, 200, 1000, &got, &err), 0);
    assert_int_equal(got.engine_id, ours);
    lvd_probe_free(&got);
    assert_int_equal(store_engine_get(s, theirs, &e, &err), 0);
    assert_string_equal(e.host, "box-b");
    lvd_engine_free(&e);
    lvd_engine *v;
    size_t n;
    assert_int_equal(store_engine_list(s, &v, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].id, ours);
    store_engine_list_free(v, n);
    /* the directory is still one engine per host */
    lvd_engine other = {.name = "cuda2", .dir = CUDA_DIR, .build = "b9750", .origin = "registered"};
    assert_int_equal(store_engine_put(s, &other, &err), -1);
    assert_non_null(strstr(err.msg, "already registered as 'cuda'"));
    store_close(s);
}

/* A into B twice, then B into A: B gains A's runs, engine, probe, verdict,
 * check and fact once; A gains only B's own; both end with the same runs
 * (by uid), each on its host's engine. */
static void test_merge_twice_and_back(void **state)
{
    fx *f = *state;
    store_merge_counts c = merge(f->b, f->a);
    assert_int_equal(c.runs, 3);
    assert_int_equal(c.results, 3);
    assert_int_equal(c.samples, 15);
    assert_int_equal(c.engines, 1);  /* box-a's engine in the same directory as box-b's */
    assert_int_equal(c.artifacts, 0); /* SHA_A is there already */
    assert_int_equal(c.probes, 1);
    assert_int_equal(c.devices, 1);
    assert_int_equal(c.verdicts, 1);
    assert_int_equal(c.checks, 1);
    assert_int_equal(c.session_facts, 1);
    assert_int_equal(count(f->b, "SELECT count(*) FROM runs"), 7);
    assert_int_equal(count(f->b, "SELECT count(*) FROM runs r JOIN engines e ON e.id = r.engine_id"
                                 " WHERE e.host = r.host"), 7);
    assert_int_equal(count(f->b, "SELECT sum(x.n_samples) FROM results x JOIN runs r ON r.id = x.run_id"
                                 " WHERE r.host = 'box-a' AND x.samples LIKE '%:10_ %'"), 15);
    assert_int_equal(count(f->b, "SELECT count(*) FROM devices d JOIN probes p ON p.id = d.probe_id"
                                 " JOIN engines e ON e.id = p.engine_id"
                                 " WHERE e.host = 'box-a' AND d.name = 'NVIDIA H200'"), 1);
    assert_int_equal(count(f->b, "SELECT count(*) FROM verdicts v JOIN engines e ON e.id = v.engine_id"
                                 " WHERE v.host = 'box-a' AND e.host = 'box-a'"), 1);

    c = merge(f->b, f->a); /* again: nothing new */
    store_merge_field fl[STORE_MERGE_FIELDS];
    store_merge_fields(&c, fl);
    for (size_t i = 0; i < STORE_MERGE_FIELDS; i++)
        if (fl[i].value)
            fail_msg("second merge added %lld %s", (long long)fl[i].value, fl[i].name);
    assert_int_equal(count(f->b, "SELECT count(*) FROM runs"), 7);

    c = merge(f->a, f->b); /* back: only box-b's own rows are new to A */
    assert_int_equal(c.runs, 4);
    assert_int_equal(c.engines, 1);
    assert_int_equal(c.artifacts, 1);
    assert_int_equal(c.verdicts, 1);
    assert_int_equal(count(f->a, "SELECT count(*) FROM runs"), 7);
    assert_int_equal(count(f->a, "SELECT count(DISTINCT uid) FROM runs"), 7);
    assert_int_equal(count(f->a, "SELECT count(*) FROM engines"), 2);
    assert_int_equal(count(f->a, "SELECT count(*) FROM runs r JOIN engines e ON e.id = r.engine_id"
                                 " WHERE e.host = r.host"), 7);
    /* verdicts keep their host: box-b's answer read from A is box-b's */
    store *s = open_store(f->a);
    lvd_verdict v;
    lvd_err err = {0};
    assert_int_equal(store_verdict_latest(s, SHA_A, "box-b", "tg", &v, &err), 0);
    assert_string_equal(v.host, "box-b");
    lvd_engine e;
    assert_int_equal(store_engine_get(s, v.engine_id, &e, &err), 0);
    assert_string_equal(e.host, "box-b");
    lvd_engine_free(&e);
    lvd_verdict_free(&v);
    store_close(s);
}

/* Refused merges: the store itself (by another name too), a store newer
 * than this binary, a missing file; the target's counts are unchanged. */
static void test_merge_refused(void **state)
{
    fx *f = *state;
    char *link = lvd_xasprintf("%s/same.db", f->dir);
    assert_int_equal(symlink(f->b, link), 0);
    char *newer = lvd_xasprintf("%s/newer.db", f->dir);
    tu_copy(f->a, newer, 0644);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(newer, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    char *missing = lvd_xasprintf("%s/missing.db", f->dir);
    const char *others[] = {f->b, link, newer, missing};
    const char *says[] = {"not merged into itself", "not merged into itself", "newer", missing};
    int64_t runs = count(f->b, "SELECT count(*) FROM runs"), engines = count(f->b, "SELECT count(*) FROM engines");
    store *s = open_store(f->b);
    for (size_t i = 0; i < 4; i++) {
        store_merge_counts c;
        lvd_err err = {0};
        assert_int_equal(store_merge(s, others[i], &c, &err), STORE_MERGE_BAD_OTHER);
        if (!strstr(err.msg, says[i]))
            fail_msg("merge %s: %s", others[i], err.msg);
    }
    store_close(s);
    assert_int_equal(count(f->b, "SELECT count(*) FROM runs"), runs);
    assert_int_equal(count(f->b, "SELECT count(*) FROM engines"), engines);
    assert_int_equal(access(missing, F_OK), -1);
    assert_int_equal(count(newer, "PRAGMA user_version"), 999);
    free(link);
    free(newer);
    free(missing);
}

/* A store made at schema 12 (before migration 13): every run gets a uid of
 * its own, an engine takes the host of its runs (else this machine's), the
 * rebuilt engines table keeps every probe, device and run pointing at it
 * (foreign keys were off, nothing cascaded), and the old store merges. */
static void test_migrate_13(void **state)
{
    fx *f = *state;
    char *old = lvd_xasprintf("%s/v12.db", f->dir);
    lvd_sb sql = {0};
    for (size_t v = 1; v <= 12; v++)
        lvd_sb_adds(&sql, store_schema_step(v));
    lvd_sb_adds(&sql, "PRAGMA user_version = 12;"
                      "INSERT INTO artifacts (sha256, size, created_at) VALUES ('" SHA_A "', 1, 1);"
                      "INSERT INTO engines (id, name, dir, build, origin, created_at) VALUES"
                      " (1, 'cuda', '" CUDA_DIR "', 'b9749', 'registered', 1),"
                      " (2, 'cpu', '/e/cpu', 'b9749', 'registered', 1);"
                      "INSERT INTO probes (id, engine_id, binary, bin_mtime_ns, bin_size, probed_at, backend)"
                      " VALUES (1, 1, '" CUDA_DIR "/llama-bench', 5, 6, 100, 'cuda');"
                      "INSERT INTO devices (probe_id, idx, selector, name, backend) VALUES"
                      " (1, 0, 'CUDA0', 'NVIDIA H200', 'cuda');"
                      "INSERT INTO runs (id, artifact, engine_id, binary, build, host, arm_key, status,"
                      " started_at, source) VALUES"
                      " (1, '" SHA_A "', 1, 'x', 'b9749', 'gpu-box-3', 'k', 'ok', 1, 'bench'),"
                      " (2, '" SHA_A "', 1, 'x', 'b9749', 'gpu-box-3', 'k', 'ok', 2, 'bench');"
                      "INSERT INTO results (id, run_id, test) VALUES (1, 1, 'tg128'), (2, 2, 'tg128');"
                      "INSERT INTO samples (result_id, idx, ts) VALUES (1, 0, 10), (2, 0, 11);");
    sqlite3 *db;
    assert_int_equal(sqlite3_open(old, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, lvd_sb_str(&sql), NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    lvd_sb_free(&sql);
    store *s = open_store(old);
    lvd_err err = {0};
    assert_int_equal(store_integrity_check(s, &err), 0);
    store_close(s);
    assert_int_equal(count(old, "PRAGMA user_version"), (int64_t)store_schema_version());
    assert_int_equal(count(old, "SELECT count(DISTINCT uid) FROM runs WHERE length(uid) = 32"), 2);
    assert_int_equal(count(old, "SELECT count(*) FROM engines WHERE id = 1 AND host = 'gpu-box-3'"), 1);
    assert_int_equal(count(old, "SELECT count(*) FROM engines WHERE id = 2 AND host = 'box-a'"), 1);
    assert_int_equal(count(old, "SELECT count(*) FROM probes WHERE engine_id = 1"), 1);
    assert_int_equal(count(old, "SELECT count(*) FROM devices"), 1);
    assert_int_equal(count(old, "SELECT sum(n_samples) FROM results"), 2);
    /* foreign keys are on again: a probe of no engine is refused */
    s = open_store(old);
    lvd_probe p = {.engine_id = 99, .binary = "/x", .backend = "cpu"};
    assert_int_equal(store_probe_put(s, &p, &err), -1);
    store_close(s);
    store_merge_counts c = merge(f->a, old);
    assert_int_equal(c.runs, 2);
    assert_int_equal(c.engines, 2); /* gpu-box-3's cuda, and cpu (box-a has no /e/cpu) */
    assert_int_equal(merge(f->a, old).runs, 0);
    free(old);
}

/* Merges path `from` into `into` in a child; kills it after delay_us
 * (0: waits). Whether it finished by itself. */
static int merge_child(const char *into, const char *from, long delay_us)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        store *s;
        store_merge_counts c;
        lvd_err err = {0};
        if (store_open(into, 0, &s, &err) || store_merge(s, from, &c, &err))
            _exit(1);
        store_close(s);
        _exit(0);
    }
    if (delay_us) {
        struct timespec t = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        nanosleep(&t, NULL);
        kill(pid, SIGKILL);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A merge of many runs SIGKILLed at a quarter, a half and three quarters
 * of the time a whole one takes: the target keeps its counts and passes the
 * integrity check (all or nothing: at worst it had committed). */
static void test_merge_killed(void **state)
{
    fx *f = *state;
    char *big = lvd_xasprintf("%s/big.db", f->dir), *target = lvd_xasprintf("%s/t.db", f->dir);
    store *s = open_store(big);
    lvd_err err = {0};
    put_artifact(s, SHA_A);
    int64_t eid = put_engine(s, "box-c", "cuda", CUDA_DIR);
    assert_int_equal(store_begin(s, &err), 0);
    for (int i = 0; i < 1500; i++)
        put_run(s, "box-c", eid, SHA_A, 40, 30, 1000 + i);
    assert_int_equal(store_commit(s, &err), 0);
    store_close(s);
    tu_copy(f->a, target, 0644);
    double t0 = now_s();
    assert_true(merge_child(target, big, 0));
    double whole = now_s() - t0;
    int64_t after = count(target, "SELECT count(*) FROM runs");
    assert_int_equal(after, 3 + 1500);
    int midway = 0;
    for (int k = 1; k <= 3; k++) {
        tu_copy(f->a, target, 0644);
        char *wal = lvd_xasprintf("%s-wal", target), *shm = lvd_xasprintf("%s-shm", target);
        unlink(wal);
        unlink(shm);
        free(wal);
        free(shm);
        int finished = merge_child(target, big, (long)(whole * 1e6 * k / 4));
        int64_t runs = count(target, "SELECT count(*) FROM runs");
        store *t;
        assert_int_equal(store_open(target, STORE_OPEN_READONLY, &t, &err), 0);
        if (store_integrity_check(t, &err))
            fail_msg("after a kill at %d/4: %s", k, err.msg);
        store_close(t);
        if (!finished && runs == 3)
            midway++;
        else if (runs != 3 && runs != after)
            fail_msg("a merge killed at %d/4 left %lld runs (before 3, after %lld)", k, (long long)runs,
                     (long long)after);
    }
    assert_true(midway > 0);
    free(big);
    free(target);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_engines_per_host, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_twice_and_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_merge_killed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrate_13, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
