/* test_store_crash.c: the store under the faults an unattended nightly meets:
 * a writer SIGKILLed at random points while recording runs (the file stays
 * intact and every acknowledged run is there, whole), two writers and readers
 * at once (readers answer during a long write transaction, read-only opens
 * included, and nobody sees "database is locked"), a disk that fills up
 * mid-run (RLIMIT_FSIZE: a clear error, earlier runs intact), and the
 * integrity check that judges all of this. Writers run in forked children so
 * that each has its own connection, as separate tools would. A download
 * meeting a full disk is e2e_fetch.sh's "disk full" case (ulimit -f). Its
 * twin test_store_crash_pg runs the kills and the two writers on PostgreSQL
 * (tests/pg); what inspects the SQLite file skips there. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/store.h"

#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define SHA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define KILLS 30

typedef struct fx {
    char *dir;
    char *path;
    int64_t eid;
} fx;

static store *open_store(const char *path, int flags)
{
    store *s;
    lvd_err err = {0};
    if (store_open(path, flags, &s, &err))
        fail_msg("%s", err.msg);
    return s;
}

/* A store with an artifact, an engine and one verdict; no connection is left
 * open (children must not inherit one across fork). */
static int setup(void **state)
{
    fx *f = lvd_xcalloc(1, sizeof *f);
    f->dir = tu_tmpdir();
    f->path = tu_store_spec(f->dir); /* a new PostgreSQL database under tests/pg */
    store *s = open_store(f->path, STORE_OPEN_CREATE);
    lvd_err err = {0};
    store_artifact a = {.sha256 = SHA, .size = 1};
    lvd_engine e = {.name = "cuda", .dir = "/e/cuda", .build = "b9749", .origin = "registered"};
    lvd_verdict v = {.artifact = SHA, .host = "box", .decided_at = 1, .objective = "tg", .arm_key = "arm",
                     .rule = "only-arm", .explain = "x"};
    if (store_artifact_put(s, &a, &err) || store_engine_put(s, &e, &err))
        fail_msg("%s", err.msg);
    v.engine_id = e.id;
    lvd_params_init(&v.params);
    if (store_verdict_put(s, &v, &err))
        fail_msg("%s", err.msg);
    f->eid = e.id;
    store_close(s);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fx *f = *state;
    tu_tmpdir_free(f->dir);
    free(f->path);
    free(f);
    return 0;
}

/* --- runs that say what they should contain ------------------------------- */

/* Samples of result r of the run numbered seq: every run is different, so a
 * run cut short or mixed with another cannot pass for whole. */
static size_t samples_of(int64_t seq, size_t r)
{
    return 150 + (size_t)(seq % 251) + r;
}

static double ts_of(int64_t seq, size_t r, size_t i)
{
    return (double)(seq % 1000) + (double)r * 1000.0 + (double)i / 8.0;
}

static void fill_result(lvd_result *x, const char *test, int64_t seq, size_t r, size_t n)
{
    memset(x, 0, sizeof *x);
    snprintf(x->test, sizeof x->test, "%s", test);
    x->n = n;
    x->ns = lvd_xcalloc(x->n, sizeof *x->ns);
    x->ts = lvd_xcalloc(x->n, sizeof *x->ts);
    for (size_t i = 0; i < x->n; i++) {
        x->ns[i] = 1000000 + (int64_t)i;
        x->ts[i] = ts_of(seq, r, i);
    }
    x->reported_json = lvd_xstrdup("{}");
}

/* Run seq: its number is in wall_ms and in its session ("seq-N"); each result
 * has samples_of(seq, r) samples, or n_samples when that is not 0. */
static void make_run(lvd_run *run, int64_t eid, int64_t seq, size_t n_results, size_t n_samples)
{
    static const char *const tests[] = {"pp512", "tg128", "pp512@d1024"};
    memset(run, 0, sizeof *run);
    strcpy(run->artifact, SHA);
    run->engine_id = eid;
    run->binary = lvd_xstrdup("/e/cuda/llama-bench");
    run->build = lvd_xstrdup("b9749");
    run->host = lvd_xstrdup("box");
    run->session = lvd_xasprintf("seq-%lld", (long long)seq);
    lvd_params_init(&run->params);
    run->arm_key = lvd_xstrdup("arm");
    strcpy(run->status, "ok");
    strcpy(run->source, "bench");
    run->started_at = 1000 + seq;
    run->wall_ms = seq;
    run->n_results = n_results;
    run->results = lvd_xcalloc(n_results, sizeof *run->results);
    for (size_t r = 0; r < n_results; r++)
        fill_result(&run->results[r], tests[r % LVD_ARRAY_LEN(tests)], seq, r,
                    n_samples ? n_samples : samples_of(seq, r));
}

/* Fails unless run holds exactly what make_run(seq = wall_ms, 2 results) wrote. */
static void assert_whole(const lvd_run *run)
{
    int64_t seq = run->wall_ms;
    char session[32];
    snprintf(session, sizeof session, "seq-%lld", (long long)seq);
    assert_string_equal(run->session, session);
    assert_int_equal(run->n_results, 2);
    for (size_t r = 0; r < 2; r++) {
        const lvd_result *x = &run->results[r];
        if (x->n != samples_of(seq, r))
            fail_msg("run %lld result %zu: %zu samples, wrote %zu", (long long)seq, r, x->n, samples_of(seq, r));
        for (size_t i = 0; i < x->n; i++)
            assert_true(x->ts[i] == ts_of(seq, r, i));
    }
}

static lvd_run *list_runs(store *s, size_t *n)
{
    store_run_filter flt = {.with_samples = 1};
    lvd_run *v;
    lvd_err err = {0};
    if (store_run_list(s, &flt, &v, n, &err))
        fail_msg("%s", err.msg);
    return v;
}

static void assert_intact(const char *path, int flags)
{
    store *s = open_store(path, flags);
    lvd_err err = {0};
    if (store_integrity_check(s, &err))
        fail_msg("%s", err.msg);
    store_close(s);
}

/* --- children -------------------------------------------------------------- */

/* Records runs first_seq, first_seq + 1, ... until killed, writing each
 * number to fd once store_run_put has returned (the acknowledgement). */
static void writer_child(const char *path, int64_t eid, int64_t first_seq, int fd)
{
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err))
        _exit(2);
    for (int64_t seq = first_seq; seq < first_seq + 100000; seq++) {
        lvd_run run;
        make_run(&run, eid, seq, 2, 0);
        if (store_run_put(s, &run, &err))
            _exit(3);
        lvd_run_free(&run);
        if (write(fd, &seq, sizeof seq) != (ssize_t)sizeof seq)
            _exit(4);
    }
    _exit(0);
}

static pid_t fork_or_fail(void)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    return pid;
}

static int wait_status(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0)
        assert_int_equal(errno, EINTR);
    return st;
}

/* A small deterministic generator: the kill points are the same on every run. */
static uint32_t next_rand(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

/* --- integrity check ------------------------------------------------------- */

static void test_integrity_clean_and_orphans(void **state)
{
    tu_sqlite_only(); /* the SQLite file itself */
    fx *f = *state;
    store *s = open_store(f->path, 0);
    lvd_err err = {0};
    lvd_run run;
    make_run(&run, f->eid, 1, 2, 0);
    assert_int_equal(store_run_put(s, &run, &err), 0);
    assert_int_equal(store_integrity_check(s, &err), 0);
    store_close(s);
    s = open_store(f->path, STORE_OPEN_READONLY);
    assert_int_equal(store_integrity_check(s, &err), 0);
    store_close(s);

    /* results whose run is gone: what a non-atomic writer would leave */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    char *sql = lvd_xasprintf("PRAGMA foreign_keys=OFF; DELETE FROM runs WHERE id = %lld", (long long)run.id);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    free(sql);
    sqlite3_close(db);
    s = open_store(f->path, 0);
    assert_int_equal(store_integrity_check(s, &err), -1);
    assert_non_null(strstr(err.msg, f->path));
    assert_non_null(strstr(err.msg, "a row of results"));
    assert_non_null(strstr(err.msg, "(2 problems)"));
    store_close(s);
    lvd_run_free(&run);
}

static void test_integrity_damaged_page(void **state)
{
    tu_sqlite_only(); /* the SQLite file itself */
    fx *f = *state;
    store *s = open_store(f->path, 0);
    lvd_err err = {0};
    for (int64_t seq = 1; seq <= 20; seq++) {
        lvd_run run;
        make_run(&run, f->eid, seq, 2, 0);
        assert_int_equal(store_run_put(s, &run, &err), 0);
        lvd_run_free(&run);
    }
    store_close(s); /* the last close checkpoints the WAL into the file */

    /* scribble over the runs_started index, behind SQLite's back */
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT rootpage, (SELECT page_size FROM pragma_page_size)"
                                            " FROM sqlite_schema WHERE name = 'runs_started'",
                                        -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long page = (long)sqlite3_column_int64(st, 0), size = (long)sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    FILE *fp = fopen(f->path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (page - 1) * size + 8, SEEK_SET), 0);
    for (long i = 0; i < 64; i++)
        fputc(0x5a, fp);
    assert_int_equal(fclose(fp), 0);

    s = open_store(f->path, STORE_OPEN_READONLY);
    assert_int_equal(store_integrity_check(s, &err), -1);
    assert_non_null(strstr(err.msg, "integrity check failed"));
    store_close(s);
}

/* --- crash safety ---------------------------------------------------------- */

/* KILLS writers, each SIGKILLed after a pseudo-random 2..40 ms: the file is
 * intact after every kill, every acknowledged run is there whole, and every
 * run that is there at all is whole (a run and its samples are one
 * transaction). */
static void test_sigkill_writer(void **state)
{
    fx *f = *state;
    uint32_t rnd = 20260101u;
    int64_t *acked = NULL;
    size_t n_acked = 0, cap = 0;
    for (int k = 0; k < KILLS; k++) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork_or_fail();
        if (pid == 0) {
            close(fds[0]);
            writer_child(f->path, f->eid, (int64_t)k * 1000000, fds[1]);
        }
        close(fds[1]);
        /* a run takes a round trip per row on PostgreSQL: kill later there */
        usleep((2000 + next_rand(&rnd) % 38000) * (tu_pg() ? 10 : 1));
        kill(pid, SIGKILL);
        int st = wait_status(pid);
        if (!WIFSIGNALED(st))
            fail_msg("writer %d ended on its own (status %d) before it was killed", k, st);
        int64_t seq;
        while (read(fds[0], &seq, sizeof seq) == (ssize_t)sizeof seq) {
            if (n_acked == cap)
                acked = lvd_xrealloc(acked, (cap = cap ? 2 * cap : 64) * sizeof *acked);
            acked[n_acked++] = seq;
        }
        close(fds[0]);
        /* every other time a reader comes first, meeting the dead writer's -wal and -shm */
        assert_intact(f->path, k % 2 ? STORE_OPEN_READONLY : 0);
    }
    store *s = open_store(f->path, STORE_OPEN_READONLY);
    size_t n;
    lvd_run *v = list_runs(s, &n);
    for (size_t i = 0; i < n; i++)
        assert_whole(&v[i]);
    for (size_t a = 0; a < n_acked; a++) {
        size_t found = 0;
        for (size_t i = 0; i < n; i++)
            found += v[i].wall_ms == acked[a];
        if (found != 1)
            fail_msg("acknowledged run %lld is there %zu times", (long long)acked[a], found);
    }
    /* the kills must have met writers at work, or this proved nothing */
    assert_true(n_acked >= KILLS);
    assert_true(n >= n_acked && n <= n_acked + KILLS);
    store_run_list_free(v, n);
    store_close(s);
    free(acked);
}

/* --- concurrency ----------------------------------------------------------- */

static void put_seq(const char *path, int64_t eid, int64_t seq)
{
    store *s = open_store(path, 0);
    lvd_err err = {0};
    lvd_run run;
    make_run(&run, eid, seq, 2, 0);
    if (store_run_put(s, &run, &err))
        fail_msg("%s", err.msg);
    lvd_run_free(&run);
    store_close(s);
}

static void signal_fd(int fd)
{
    char c = 1;
    if (write(fd, &c, 1) != 1)
        _exit(5);
}

static void wait_fd(int fd)
{
    char c;
    assert_int_equal(read(fd, &c, 1), 1);
}

/* Writer A: opens a transaction, records run 2 in it, says so, and holds it
 * until told to commit. */
static void holding_writer(const char *path, int64_t eid, int ready, int go)
{
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err) || store_begin(s, &err))
        _exit(2);
    lvd_run run;
    make_run(&run, eid, 2, 2, 0);
    if (store_run_put(s, &run, &err))
        _exit(3);
    signal_fd(ready);
    char c;
    if (read(go, &c, 1) != 1 || store_commit(s, &err))
        _exit(4);
    lvd_run_free(&run);
    store_close(s);
    _exit(0);
}

/* Writer B: records run 3 while A holds the write lock (it waits its turn). */
static void waiting_writer(const char *path, int64_t eid, int ready)
{
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err))
        _exit(2);
    signal_fd(ready);
    lvd_run run;
    make_run(&run, eid, 3, 2, 0);
    if (store_run_put(s, &run, &err)) {
        fprintf(stderr, "writer B: %s\n", err.msg);
        _exit(3);
    }
    lvd_run_free(&run);
    store_close(s);
    _exit(0);
}

/* What `lvd select` and the evidence page do, during A's transaction. */
static void read_during_write(const char *path, int flags)
{
    store *s;
    lvd_err err = {0};
    if (store_open(path, flags, &s, &err))
        fail_msg("open (flags %d) during a write: %s", flags, err.msg);
    size_t n;
    lvd_run *v = list_runs(s, &n);
    assert_int_equal(n, 1); /* the committed run only, not A's */
    assert_whole(&v[0]);
    store_run_list_free(v, n);
    lvd_verdict vd;
    if (store_verdict_latest(s, SHA, "box", "tg", &vd, &err) != 0)
        fail_msg("verdict during a write: %s", err.msg);
    assert_string_equal(vd.rule, "only-arm");
    lvd_verdict_free(&vd);
    store_counts c;
    if (store_counts_get(s, &c, &err))
        fail_msg("counts during a write: %s", err.msg);
    assert_int_equal(c.runs, 1);
    store_close(s);
}

static void test_two_writers_and_readers(void **state)
{
    fx *f = *state;
    put_seq(f->path, f->eid, 1);
    int a_ready[2], a_go[2], b_ready[2];
    assert_int_equal(pipe(a_ready), 0);
    assert_int_equal(pipe(a_go), 0);
    assert_int_equal(pipe(b_ready), 0);
    pid_t a = fork_or_fail();
    if (a == 0)
        holding_writer(f->path, f->eid, a_ready[1], a_go[0]);
    wait_fd(a_ready[0]);
    pid_t b = fork_or_fail();
    if (b == 0)
        waiting_writer(f->path, f->eid, b_ready[1]);
    wait_fd(b_ready[0]);
    usleep(100000); /* let B reach the lock; correctness does not depend on it */

    read_during_write(f->path, STORE_OPEN_READONLY);
    read_during_write(f->path, 0);

    signal_fd(a_go[1]);
    int st = wait_status(a);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    st = wait_status(b);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    int *fds[] = {a_ready, a_go, b_ready};
    for (size_t i = 0; i < LVD_ARRAY_LEN(fds); i++) {
        close(fds[i][0]);
        close(fds[i][1]);
    }

    store *s = open_store(f->path, STORE_OPEN_READONLY);
    size_t n;
    lvd_run *v = list_runs(s, &n);
    assert_int_equal(n, 3);
    int64_t id2 = 0, id3 = 0;
    for (size_t i = 0; i < n; i++) {
        assert_whole(&v[i]);
        if (v[i].wall_ms == 2)
            id2 = v[i].id;
        if (v[i].wall_ms == 3)
            id3 = v[i].id;
    }
    assert_true(id2 > 0 && id3 > id2); /* B waited for A's commit */
    store_run_list_free(v, n);
    store_close(s);
}

/* Drops the privileges of the process to those of a reader who may read the
 * store but not write its directory: user nobody when root, else the same
 * user with the directory made read-only (the parent restores it). */
static void become_reader(const char *dir)
{
    if (geteuid() == 0) {
        if (chmod(dir, 0755) || setgid(65534) || setuid(65534))
            _exit(10);
    } else if (chmod(dir, 0555)) {
        _exit(10);
    }
}

/* In a child as such a reader: opens the store read-only and reads; exits 0
 * when that worked (want_ok) or failed with the message that says what to do. */
static void reader_child(const char *dir, const char *path, int want_ok)
{
    become_reader(dir);
    store *s;
    lvd_err err = {0};
    if (store_open(path, STORE_OPEN_READONLY, &s, &err)) {
        fprintf(stderr, "reader: %s\n", err.msg);
        _exit(!want_ok && strstr(err.msg, "without write access to its directory") ? 0 : 1);
    }
    store_run_filter flt = {0};
    lvd_run *v;
    size_t n;
    lvd_verdict vd;
    int ok = store_run_list(s, &flt, &v, &n, &err) == 0 && n == 1 &&
             store_verdict_latest(s, SHA, "box", "tg", &vd, &err) == 0;
    if (!ok)
        fprintf(stderr, "reader: %s\n", err.msg);
    store_close(s);
    _exit(want_ok && ok ? 0 : 1);
}

static void run_reader(fx *f, int want_ok)
{
    pid_t pid = fork_or_fail();
    if (pid == 0)
        reader_child(f->dir, f->path, want_ok);
    int st = wait_status(pid);
    assert_int_equal(chmod(f->dir, 0700), 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("reader without write access (want %s): status %d", want_ok ? "answers" : "a clear refusal", st);
}

/* lvd select run by a service user that may read the store but not write its
 * directory: the writers keep the -wal and -shm files beside the store so
 * that such a reader gets answers; a store without them (last written by an
 * older llama-verdict) is refused with a message saying what to do, and the
 * owner still reads it. */
static void test_reader_without_write_access(void **state)
{
    tu_sqlite_only(); /* the SQLite file itself */
    fx *f = *state;
    put_seq(f->path, f->eid, 1);
    char *wal = lvd_xasprintf("%s-wal", f->path), *shm = lvd_xasprintf("%s-shm", f->path);
    struct stat st;
    assert_int_equal(stat(wal, &st), 0);
    assert_int_equal(stat(shm, &st), 0);
    run_reader(f, 1);

    /* the last close checkpointed everything into the store: the files can go */
    assert_int_equal(unlink(wal), 0);
    assert_int_equal(unlink(shm), 0);
    run_reader(f, 0);
    store *s = open_store(f->path, STORE_OPEN_READONLY);
    size_t n;
    lvd_run *v = list_runs(s, &n);
    assert_int_equal(n, 1);
    assert_whole(&v[0]);
    store_run_list_free(v, n);
    store_close(s);
    free(wal);
    free(shm);
}

/* --- disk full --------------------------------------------------------------- */

/* In a child with RLIMIT_FSIZE just above the files' sizes and SIGXFSZ
 * ignored, records a run far larger than that; sends the error to fd. */
static void full_disk_writer(const char *path, int64_t eid, int fd)
{
    signal(SIGXFSZ, SIG_IGN);
    store *s;
    lvd_err err = {0};
    if (store_open(path, 0, &s, &err))
        _exit(2);
    char *wal = lvd_xasprintf("%s-wal", path);
    struct stat a, b;
    off_t limit = (stat(path, &a) ? 0 : a.st_size);
    if (stat(wal, &b) == 0 && b.st_size > limit)
        limit = b.st_size;
    limit += 16384;
    struct rlimit rl = {.rlim_cur = (rlim_t)limit, .rlim_max = (rlim_t)limit};
    if (setrlimit(RLIMIT_FSIZE, &rl))
        _exit(2);
    lvd_run run;
    make_run(&run, eid, 4, 3, 20000);
    int rc = store_run_put(s, &run, &err);
    lvd_run_free(&run);
    size_t len = strlen(err.msg);
    if (write(fd, err.msg, len) != (ssize_t)len)
        _exit(5);
    store_close(s);
    free(wal);
    _exit(rc == -1 ? 0 : 1);
}

static void test_disk_full(void **state)
{
    tu_sqlite_only(); /* the SQLite file itself */
    fx *f = *state;
    for (int64_t seq = 1; seq <= 3; seq++)
        put_seq(f->path, f->eid, seq);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork_or_fail();
    if (pid == 0) {
        close(fds[0]);
        full_disk_writer(f->path, f->eid, fds[1]);
    }
    close(fds[1]);
    char msg[1100] = "";
    ssize_t got = 0, r;
    while ((r = read(fds[0], msg + got, sizeof msg - 1 - (size_t)got)) > 0)
        got += r;
    msg[got] = '\0';
    close(fds[0]);
    int st = wait_status(pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the over-limit write did not fail cleanly (status %d): %s", st, msg);
    /* a clear one-line error naming the store */
    assert_non_null(strstr(msg, f->path));
    assert_non_null(strstr(msg, "cannot commit: disk I/O error: a write failed (disk full"));
    assert_null(strchr(msg, '\n'));

    assert_intact(f->path, 0);
    store *s = open_store(f->path, 0);
    size_t n;
    lvd_run *v = list_runs(s, &n);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++)
        assert_whole(&v[i]);
    store_run_list_free(v, n);
    store_close(s);
    put_seq(f->path, f->eid, 5); /* with room again, writing works */
    assert_intact(f->path, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_integrity_clean_and_orphans, setup, teardown),
        cmocka_unit_test_setup_teardown(test_integrity_damaged_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sigkill_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_two_writers_and_readers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reader_without_write_access, setup, teardown),
        cmocka_unit_test_setup_teardown(test_disk_full, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
