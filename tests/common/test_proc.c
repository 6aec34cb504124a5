/* test_proc.c: the process runner (common/proc.c) against a real child
 * (tests/support/proc-helper.c): exit codes, signals, timeouts that kill the whole
 * process group, lingering and escaping grandchildren, capture limits, the
 * environment overlay, the working directory, spawn failures, no leaked fds
 * and no zombies, and the child's group killed when its parent is SIGKILLed;
 * a long-lived child (proc_start): its output in a log, its whole group
 * stopped by proc_stop (SIGTERM, SIGKILL for one that ignores it), an exit
 * seen, and its group killed when the process that started it is SIGKILLed.
 * This process makes itself a child subreaper so orphaned
 * grandchildren come back to it and their fate can be checked exactly. */
#include "tests/support/testutil.h"

#include "common/proc.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *helper;

static int setup(void **state)
{
    (void)state;
    const char *bin = getenv("LVD_TEST_BIN");
    if (!bin || !*bin)
        fail_msg("LVD_TEST_BIN is not set (run the tests through ctest)");
    helper = lvd_xasprintf("%s/proc-helper", bin);
    assert_int_equal(access(helper, X_OK), 0);
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    free(helper);
    return 0;
}

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* No child of ours is left, running or zombie. */
static void assert_no_children(void)
{
    int st;
    errno = 0;
    assert_int_equal(waitpid(-1, &st, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

/* Runs the helper with up to three arguments. */
static void run_helper(proc_result *res, int timeout_ms, size_t cap, const char *const *env,
                       const char *a1, const char *a2, const char *a3)
{
    const char *argv[] = {helper, a1, a2, a3, NULL};
    proc_spec spec = {.argv = argv, .env = env, .timeout_ms = timeout_ms, .max_capture = cap};
    lvd_err err = {{0}};
    assert_int_equal(proc_run(&spec, res, &err), 0);
    assert_int_equal(res->spawned, 1);
}

/* Waits (bounded) for an orphaned grandchild, reparented to us, and returns
 * its wait status; kills it and fails the test if it is still alive. */
static int reap_orphan(pid_t pid)
{
    for (int i = 0; i < 1000; i++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid)
            return st;
        assert_int_equal(r, 0);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fail_msg("grandchild %ld survived its process group", (long)pid);
    return 0;
}

static void test_exit_codes(void **state)
{
    (void)state;
    int fds = count_fds();
    proc_result res;
    run_helper(&res, 10000, 0, NULL, "exit", "0", NULL);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    assert_false(res.signaled);
    assert_false(res.timed_out);
    assert_true(proc_ok(&res));
    char buf[128];
    assert_string_equal(proc_describe(&res, buf, sizeof buf), "exit 0");
    proc_result_free(&res);

    run_helper(&res, 10000, 0, NULL, "exit", "42", NULL);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 42);
    assert_false(proc_ok(&res));
    assert_string_equal(proc_describe(&res, buf, sizeof buf), "exit 42");
    assert_string_equal(lvd_sb_str(&res.out), "");
    proc_result_free(&res);
    assert_no_children();
    assert_int_equal(count_fds(), fds);
}

static void test_signal(void **state)
{
    (void)state;
    proc_result res;
    run_helper(&res, 10000, 0, NULL, "signal", "11", NULL);
    assert_false(res.exited);
    assert_true(res.signaled);
    assert_int_equal(res.signo, SIGSEGV);
    assert_false(res.timed_out);
    assert_false(proc_ok(&res));
    char buf[128];
    assert_string_equal(proc_describe(&res, buf, sizeof buf), "killed by signal 11 (Segmentation fault)");
    proc_result_free(&res);
    assert_no_children();
}

static void test_timeout_sigterm(void **state)
{
    (void)state;
    /* An ignored SIGTERM in the parent must not be inherited by the child. */
    struct sigaction ign = {.sa_handler = SIG_IGN}, old;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGTERM, &ign, &old);
    proc_result res;
    run_helper(&res, 200, 0, NULL, "sleep", NULL, NULL);
    sigaction(SIGTERM, &old, NULL);
    assert_true(res.timed_out);
    assert_true(res.signaled);
    assert_int_equal(res.signo, SIGTERM);
    assert_false(proc_ok(&res));
    char buf[128];
    assert_true(lvd_starts_with(proc_describe(&res, buf, sizeof buf), "timed out after "));
    assert_true(res.wall_ms >= 200);
    proc_result_free(&res);
    assert_no_children();
}

static void test_timeout_escalates_to_sigkill(void **state)
{
    (void)state;
    proc_result res;
    run_helper(&res, 200, 0, NULL, "ignore-term", NULL, NULL);
    assert_true(res.timed_out);
    assert_true(res.signaled);
    assert_int_equal(res.signo, SIGKILL);
    assert_string_equal(lvd_sb_str(&res.out), "ready\n");
    proc_result_free(&res);
    assert_no_children();
}

static pid_t parse_pid(const proc_result *res)
{
    int64_t v;
    char *s = lvd_xstrdup(lvd_sb_str(&res->out));
    char *nl = strchr(s, '\n');
    assert_non_null(nl);
    *nl = '\0';
    assert_int_equal(lvd_parse_i64(s, &v), 0);
    free(s);
    assert_true(v > 1);
    return (pid_t)v;
}

static void test_timeout_kills_grandchild(void **state)
{
    (void)state;
    proc_result res;
    run_helper(&res, 300, 0, NULL, "grandchild", NULL, NULL);
    assert_true(res.timed_out);
    assert_true(res.signaled);
    pid_t gc = parse_pid(&res);
    int st = reap_orphan(gc);
    assert_true(WIFSIGNALED(st));
    proc_result_free(&res);
    assert_no_children();
}

static void test_lingering_grandchild_killed(void **state)
{
    (void)state;
    /* The leader exits at once; its grandchild holds stdout open. Without the
     * group kill this would run into the (long) timeout. */
    proc_result res;
    run_helper(&res, 60000, 0, NULL, "linger", NULL, NULL);
    assert_false(res.timed_out);
    assert_true(proc_ok(&res));
    pid_t gc = parse_pid(&res);
    int st = reap_orphan(gc);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGKILL);
    proc_result_free(&res);
    assert_no_children();
}

static void test_escaped_grandchild_does_not_hang(void **state)
{
    (void)state;
    /* A grandchild that left the group keeps the pipes open: proc_run must
     * still return (after its drain grace), well before the timeout. */
    proc_result res;
    run_helper(&res, 60000, 0, NULL, "escape", NULL, NULL);
    assert_false(res.timed_out);
    assert_true(proc_ok(&res));
    assert_true(res.wall_ms < 30000);
    pid_t gc = parse_pid(&res);
    assert_int_equal(kill(gc, SIGKILL), 0);
    int st = reap_orphan(gc);
    assert_true(WIFSIGNALED(st));
    proc_result_free(&res);
    assert_no_children();
}

/* Reads "PID GRANDCHILD-PID" from the helper's pidfile (bounded wait). */
static void read_pids(const char *file, long *child, long *gc)
{
    *child = *gc = 0;
    for (int i = 0; i < 1000 && !*child; i++) {
        FILE *f = fopen(file, "r");
        if (!f || fscanf(f, "%ld %ld", child, gc) != 2)
            *child = 0;
        if (f)
            fclose(f);
        if (!*child)
            usleep(10000);
    }
    assert_true(*child > 1 && *gc > 1);
}

/* Our death (SIGKILL: nothing to catch) takes the child and its grandchild
 * with it: a "parent" forked here runs the helper, through proc_run or as a
 * long-lived child (proc_start, a server's driver), and is killed; both of
 * the helper's processes, reparented to this subreaper, must die of SIGKILL
 * within moments, and the guard too. */
static void starter_killed(int long_lived)
{
    char dir[] = "/tmp/lvd-test-proc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *file = lvd_xasprintf("%s/pids", dir);
    pid_t parent = fork();
    assert_true(parent >= 0);
    if (parent == 0) {
        const char *argv[] = {helper, "pidfile", file, NULL};
        /* proc_start's child has no time limit of its own: 1 ms must not end it */
        proc_spec spec = {.argv = argv, .timeout_ms = long_lived ? 1 : 120000};
        proc_result res;
        proc_child c;
        if (!long_lived)
            proc_run(&spec, &res, NULL);
        else if (proc_start(&spec, NULL, &c, NULL) == 0)
            pause(); /* until SIGKILL */
        _exit(3); /* not reached: killed first */
    }
    long child, gc;
    read_pids(file, &child, &gc);
    assert_int_equal(kill(parent, SIGKILL), 0);
    int st;
    assert_int_equal(waitpid(parent, &st, 0), parent);
    st = reap_orphan((pid_t)child);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    st = reap_orphan((pid_t)gc);
    assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    for (int i = 0; i < 1000; i++) { /* the guard, reparented to us too */
        pid_t r = waitpid(-1, &st, WNOHANG);
        if (r < 0)
            break;
        if (r == 0)
            usleep(10000);
    }
    assert_no_children();
    unlink(file);
    rmdir(dir);
    free(file);
}

static void test_parent_killed_kills_group(void **state)
{
    (void)state;
    starter_killed(0);
}

static void test_start_stop_group(void **state)
{
    (void)state;
    char dir[] = "/tmp/lvd-test-proc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *file = lvd_xasprintf("%s/pids", dir), *log = lvd_xasprintf("%s/log", dir);
    int fds = count_fds();
    const char *argv[] = {helper, "pidfile", file, NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = 1};
    proc_child c;
    lvd_err err = {{0}};
    assert_int_equal(proc_start(&spec, log, &c, &err), 0);
    assert_true(c.pid > 0 && c.pgid > 0);
    long child, gc;
    read_pids(file, &child, &gc);
    assert_int_equal(child, c.pid);
    assert_int_equal(proc_child_exited(&c), 0);
    proc_stop(&c, 5000);
    char how[96];
    assert_string_equal(proc_child_describe(&c, how, sizeof how), "killed by signal 15 (Terminated)");
    int st = reap_orphan((pid_t)gc); /* its grandchild went with the group */
    assert_true(WIFSIGNALED(st));
    assert_no_children();
    assert_int_equal(count_fds(), fds);
    proc_stop(&c, 0); /* again: nothing to do */
    unlink(file);
    unlink(log);
    rmdir(dir);
    free(file);
    free(log);
}

static void test_start_log_exit_and_kill(void **state)
{
    (void)state;
    char dir[] = "/tmp/lvd-test-proc-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *log = lvd_xasprintf("%s/log", dir);
    const char *flood[] = {helper, "flood", "10", NULL};
    proc_spec spec = {.argv = flood, .timeout_ms = 1};
    proc_child c;
    lvd_err err = {{0}};
    assert_int_equal(proc_start(&spec, log, &c, &err), 0);
    for (int i = 0; i < 1000 && !proc_child_exited(&c); i++)
        usleep(10000);
    char how[96];
    assert_string_equal(proc_child_describe(&c, how, sizeof how), "exit 0");
    proc_stop(&c, 1000);
    lvd_sb sb = {0};
    assert_int_equal(lvd_read_file(log, 1 << 20, &sb, &err), 0);
    assert_int_equal(sb.len, 20); /* stdout and stderr both in the log */
    lvd_sb_free(&sb);
    /* a child that ignores SIGTERM gets SIGKILL after the grace */
    const char *stubborn[] = {helper, "ignore-term", NULL};
    spec.argv = stubborn;
    assert_int_equal(proc_start(&spec, log, &c, &err), 0);
    for (int i = 0; i < 1000; i++) { /* "ready": its handler is in place */
        lvd_sb_reset(&sb);
        if (lvd_read_file(log, 1 << 20, &sb, &err) == 0 && strstr(lvd_sb_str(&sb), "ready"))
            break;
        usleep(10000);
    }
    lvd_sb_free(&sb);
    int64_t t0 = lvd_mono_ms();
    proc_stop(&c, 200);
    assert_true(lvd_mono_ms() - t0 >= 200);
    assert_string_equal(proc_child_describe(&c, how, sizeof how), "killed by signal 9 (Killed)");
    assert_no_children();
    const char *none[] = {"/nonexistent/lvd-no-such-program", NULL};
    spec.argv = none;
    assert_int_equal(proc_start(&spec, log, &c, &err), -1);
    assert_non_null(strstr(err.msg, "cannot execute: No such file or directory"));
    assert_int_equal(c.pid, 0);
    assert_no_children();
    unlink(log);
    rmdir(dir);
    free(log);
}

static void test_starter_killed_kills_group(void **state)
{
    (void)state;
    starter_killed(1);
}

static int all_bytes(const lvd_sb *sb, char c)
{
    for (size_t i = 0; i < sb->len; i++)
        if (sb->buf[i] != c)
            return 0;
    return 1;
}

static void test_large_output(void **state)
{
    (void)state;
    proc_result res;
    /* 3 MiB on each stream fits the default 4 MiB capture. */
    run_helper(&res, 60000, 0, NULL, "flood", "3145728", NULL);
    assert_true(proc_ok(&res));
    assert_int_equal(res.out.len, 3145728);
    assert_int_equal(res.err.len, 3145728);
    assert_true(all_bytes(&res.out, 'o'));
    assert_true(all_bytes(&res.err, 'e'));
    assert_false(res.out_truncated);
    assert_false(res.err_truncated);
    proc_result_free(&res);

    /* 8 MiB with a 1 MiB cap: the head is kept, the rest is read and dropped,
     * and the child is never blocked on a full pipe. */
    run_helper(&res, 60000, 1 << 20, NULL, "flood", "8388608", NULL);
    assert_true(proc_ok(&res));
    assert_int_equal(res.out.len, 1 << 20);
    assert_int_equal(res.err.len, 1 << 20);
    assert_true(res.out_truncated);
    assert_true(res.err_truncated);
    assert_true(all_bytes(&res.out, 'o'));
    proc_result_free(&res);
    assert_no_children();
}

static void test_env_overlay_and_stdin(void **state)
{
    (void)state;
    setenv("LVD_PROC_KEEP", "kept", 1);
    setenv("LVD_PROC_DROP", "dropped", 1);
    setenv("LVD_PROC_OVER", "old", 1);
    const char *env[] = {"LVD_PROC_OVER=new", "LVD_PROC_ADD=a=b", "LVD_PROC_DROP", NULL};
    const char *argv[] = {helper, "env", "LVD_PROC_KEEP", "LVD_PROC_OVER", "LVD_PROC_ADD",
                          "LVD_PROC_DROP", NULL};
    proc_spec spec = {.argv = argv, .env = env, .timeout_ms = 10000};
    proc_result res;
    assert_int_equal(proc_run(&spec, &res, NULL), 0);
    assert_true(proc_ok(&res));
    assert_string_equal(lvd_sb_str(&res.out),
                        "LVD_PROC_KEEP=kept\nLVD_PROC_OVER=new\nLVD_PROC_ADD=a=b\nLVD_PROC_DROP unset\n");
    proc_result_free(&res);
    assert_string_equal(getenv("LVD_PROC_OVER"), "old"); /* ours untouched */

    run_helper(&res, 10000, 0, NULL, "stdin", NULL, NULL);
    assert_string_equal(lvd_sb_str(&res.out), "0\n"); /* /dev/null */
    proc_result_free(&res);
}

static void test_cwd(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *real = realpath(dir, NULL);
    const char *argv[] = {helper, "pwd", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = 10000, .cwd = real};
    proc_result res;
    assert_int_equal(proc_run(&spec, &res, NULL), 0);
    assert_true(proc_ok(&res));
    char *want = lvd_xasprintf("%s\n", real);
    assert_string_equal(lvd_sb_str(&res.out), want);
    free(want);
    proc_result_free(&res);

    char *missing = lvd_xasprintf("%s/nope", real);
    spec.cwd = missing;
    assert_int_equal(proc_run(&spec, &res, NULL), 0);
    assert_false(res.spawned);
    assert_int_equal(res.spawn_errno, ENOENT);
    proc_result_free(&res);
    free(missing);
    free(real);
    tu_tmpdir_free(dir);
}

static void expect_spawn_error(const char *path, int want_errno, const char *want_text)
{
    int fds = count_fds();
    const char *argv[] = {path, NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = 10000};
    proc_result res;
    lvd_err err = {{0}};
    assert_int_equal(proc_run(&spec, &res, &err), 0);
    assert_false(res.spawned);
    assert_int_equal(res.spawn_errno, want_errno);
    assert_false(proc_ok(&res));
    char buf[256];
    assert_string_equal(proc_describe(&res, buf, sizeof buf), want_text);
    proc_result_free(&res);
    assert_no_children();
    assert_int_equal(count_fds(), fds);
}

static void test_spawn_failures(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *missing = lvd_xasprintf("%s/llama-bench", dir);
    expect_spawn_error(missing, ENOENT, "cannot execute: No such file or directory");

    char *plain = lvd_xasprintf("%s/not-exec", dir);
    tu_write_str(plain, "#!/bin/sh\nexit 0\n");
    chmod(plain, 0644);
    expect_spawn_error(plain, EACCES, "cannot execute: Permission denied");

    /* Executable but no #! line: execve says ENOEXEC and no shell is tried. */
    char *noshebang = lvd_xasprintf("%s/no-shebang", dir);
    tu_write_str(noshebang, "exit 0\n");
    chmod(noshebang, 0755);
    expect_spawn_error(noshebang, ENOEXEC, "cannot execute: Exec format error");

    expect_spawn_error(dir, EACCES, "cannot execute: Permission denied");
    free(missing);
    free(plain);
    free(noshebang);
    tu_tmpdir_free(dir);
}

static void test_bad_spec(void **state)
{
    (void)state;
    proc_result res;
    lvd_err err = {{0}};
    const char *argv[] = {helper, "exit", "0", NULL};
    proc_spec spec = {.argv = argv, .timeout_ms = 0};
    assert_int_equal(proc_run(&spec, &res, &err), -1);
    assert_non_null(strstr(err.msg, "timeout"));
    proc_result_free(&res);
    const char *empty[] = {NULL};
    proc_spec spec2 = {.argv = empty, .timeout_ms = 1000};
    assert_int_equal(proc_run(&spec2, &res, &err), -1);
    proc_result_free(&res);
    assert_no_children();
}

static void expect_tail(const char *s, int n, const char *want)
{
    char *t = proc_tail(s, n);
    assert_string_equal(t, want);
    free(t);
}

static void test_tail(void **state)
{
    (void)state;
    expect_tail("a\nb\nc\n", 2, "b\nc\n");
    expect_tail("a\nb\nc", 2, "b\nc");
    expect_tail("a\nb\nc\n", 1, "c\n");
    expect_tail("a\nb\n", 5, "a\nb\n");
    expect_tail("", 3, "");
    expect_tail(NULL, 3, "");
    expect_tail("a\nb\n", 0, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exit_codes),
        cmocka_unit_test(test_signal),
        cmocka_unit_test(test_timeout_sigterm),
        cmocka_unit_test(test_timeout_escalates_to_sigkill),
        cmocka_unit_test(test_timeout_kills_grandchild),
        cmocka_unit_test(test_lingering_grandchild_killed),
        cmocka_unit_test(test_escaped_grandchild_does_not_hang),
        cmocka_unit_test(test_parent_killed_kills_group),
        cmocka_unit_test(test_large_output),
        cmocka_unit_test(test_env_overlay_and_stdin),
        cmocka_unit_test(test_cwd),
        cmocka_unit_test(test_spawn_failures),
        cmocka_unit_test(test_bad_spec),
        cmocka_unit_test(test_tail),
        cmocka_unit_test(test_start_stop_group),
        cmocka_unit_test(test_start_log_exit_and_kill),
        cmocka_unit_test(test_starter_killed_kills_group),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
