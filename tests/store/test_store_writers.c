/* test_store_writers.c: several writers on one store at once, as the nightlies
 * of several boxes sharing a PostgreSQL store (or two tools on one SQLite
 * file): two processes open a new store at the same moment (one creates the
 * schema, the other waits and finds it), then two processes record runs at
 * once, each run one transaction: afterwards every run of both is there
 * exactly once and whole. Runs on SQLite here and on PostgreSQL as
 * test_store_writers_pg (tests/pg/with-postgres.sh). */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHA "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define RUNS_EACH 25

/* Run k of host h: 40 + k % 7 samples in one result, each t/s naming both,
 * so a mixed or cut run cannot pass for whole. */
static size_t n_samples(int k) { return 40 + (size_t)(k % 7); }
static double sample_ts(int h, int k, size_t i) { return h * 10000.0 + k * 100.0 + (double)i; }

static void host_run(lvd_run *run, int64_t eid, int h, int k)
{
    memset(run, 0, sizeof *run);
    strcpy(run->artifact, SHA);
    run->engine_id = eid;
    run->binary = lvd_xstrdup("/e/llama-bench");
    run->build = lvd_xstrdup("b1");
    run->host = lvd_xasprintf("box-%d", h);
    run->session = lvd_xasprintf("night-%d", h);
    lvd_params_init(&run->params);
    run->arm_key = lvd_xstrdup("arm");
    strcpy(run->status, "ok");
    strcpy(run->source, "bench");
    run->started_at = 5000 + k;
    run->wall_ms = k;
    run->n_results = 1;
    run->results = lvd_xcalloc(1, sizeof *run->results);
    lvd_result *x = &run->results[0];
    snprintf(x->test, sizeof x->test, "tg128");
    x->n = n_samples(k);
    x->ns = lvd_xcalloc(x->n, sizeof *x->ns);
    x->ts = lvd_xcalloc(x->n, sizeof *x->ts);
    for (size_t i = 0; i < x->n; i++) {
        x->ns[i] = 1000 + (int64_t)i;
        x->ts[i] = sample_ts(h, k, i);
    }
    x->reported_json = lvd_xstrdup("{}");
}

/* Forks fn(spec, arg) in a child that first waits for a byte on go. */
static pid_t start_child(int go, void (*fn)(const char *, int64_t, int), const char *spec, int64_t eid, int h)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char c;
        if (read(go, &c, 1) != 1)
            _exit(5);
        fn(spec, eid, h);
        _exit(0);
    }
    return pid;
}

static void finish(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("writer %ld failed (status %d)", (long)pid, st);
}

/* Starts two children of fn at the same moment and waits for both. */
static void two_at_once(void (*fn)(const char *, int64_t, int), const char *spec, int64_t eid)
{
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t a = start_child(go[0], fn, spec, eid, 1), b = start_child(go[0], fn, spec, eid, 2);
    assert_int_equal(write(go[1], "xx", 2), 2);
    close(go[0]);
    close(go[1]);
    finish(a);
    finish(b);
}

static void open_child(const char *spec, int64_t eid, int h)
{
    (void)eid;
    (void)h;
    store *s;
    lvd_err err = {{0}};
    if (store_open(spec, STORE_OPEN_CREATE, &s, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        _exit(2);
    }
    store_close(s);
}

static void writer_child(const char *spec, int64_t eid, int h)
{
    store *s;
    lvd_err err = {{0}};
    if (store_open(spec, 0, &s, &err))
        _exit(2);
    for (int k = 0; k < RUNS_EACH; k++) {
        lvd_run run;
        host_run(&run, eid, h, k);
        if (store_run_put(s, &run, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            _exit(3);
        }
        lvd_run_free(&run);
    }
    store_close(s);
}

/* Each (host, k) exactly once, its samples as written. */
static void assert_all_whole(store *s)
{
    store_run_filter flt = {.with_samples = 1};
    lvd_run *v;
    size_t n;
    lvd_err err = {{0}};
    if (store_run_list(s, &flt, &v, &n, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(n, 2 * RUNS_EACH);
    int seen[2][RUNS_EACH] = {{0}};
    for (size_t i = 0; i < n; i++) {
        int h = v[i].host[strlen(v[i].host) - 1] - '0', k = (int)v[i].wall_ms;
        assert_true(h >= 1 && h <= 2 && k >= 0 && k < RUNS_EACH);
        seen[h - 1][k]++;
        assert_int_equal(v[i].n_results, 1);
        const lvd_result *x = &v[i].results[0];
        assert_int_equal(x->n, n_samples(k));
        for (size_t j = 0; j < x->n; j++)
            assert_true(x->ts[j] == sample_ts(h, k, j));
    }
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < RUNS_EACH; k++)
            if (seen[h][k] != 1)
                fail_msg("run %d of box-%d is there %d times", k, h + 1, seen[h][k]);
    store_run_list_free(v, n);
}

static void test_two_writers(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *spec = tu_store_spec(dir);
    /* two first opens at once: one creates the schema, neither fails */
    two_at_once(open_child, spec, 0);
    store *s = tu_store_at(spec);
    lvd_err err = {{0}};
    store_artifact a = {.sha256 = SHA, .size = 1};
    lvd_engine e = {.name = "cuda", .dir = "/e", .build = "b1", .origin = "registered"};
    if (store_artifact_put(s, &a, &err) || store_engine_put(s, &e, &err))
        fail_msg("%s", err.msg);
    store_close(s); /* no connection crosses the fork */
    two_at_once(writer_child, spec, e.id);
    s = tu_store_at(spec);
    assert_all_whole(s);
    store_close(s);
    free(spec);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
