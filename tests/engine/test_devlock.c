/* test_devlock.c: the host's device lock (engine/devlock.c): taken, refused
 * to another process with the holder's pid and tool in the line, waited for
 * within a bound, held already by a child that inherited it, and free again
 * once let go. The other process is a fork of this one that reports through
 * its exit status. */
#include "tests/support/testutil.h"

#include "engine/devlock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { C_HELD = 10, C_BUSY_OK, C_BUSY_BAD, C_ERROR };

/* In a forked child: tries the lock (as another process unless inherit) and
 * exits with what it got; the busy line must name want. */
static void __attribute__((noreturn)) child_try(const char *store, int inherit, int64_t wait_ms,
                                                const char *want)
{
    if (!inherit)
        unsetenv(ENGINE_DEVLOCK_ENV);
    engine_devlock l;
    lvd_err err = {{0}};
    int64_t t0 = lvd_mono_ms();
    int rc = engine_devlock_take(store, "test-b", wait_ms, &l, &err);
    if (rc == 0)
        _exit(l.inherited == inherit ? C_HELD : C_ERROR);
    if (rc < 0)
        _exit(C_ERROR);
    int named = want && strstr(err.msg, want) && strstr(err.msg, "the devices are in use");
    int waited = !wait_ms || (lvd_mono_ms() - t0 >= wait_ms && strstr(err.msg, "(waited for it)"));
    _exit(named && waited ? C_BUSY_OK : C_BUSY_BAD);
}

static int in_child(const char *store, int inherit, int64_t wait_ms, const char *want)
{
    pid_t p = fork();
    assert_true(p >= 0);
    if (p == 0)
        child_try(store, inherit, wait_ms, want);
    int st;
    assert_int_equal(waitpid(p, &st, 0), p);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void lock_is_refused_waited_inherited_and_freed(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char *store = lvd_xasprintf("%s/sub/store.db", dir);
    unsetenv("LVD_LOCK_DIR");
    unsetenv(ENGINE_DEVLOCK_ENV);
    engine_devlock a;
    lvd_err err = {{0}};
    assert_int_equal(engine_devlock_take(store, "test-a", 0, &a, &err), 0);
    char *want_path = lvd_xasprintf("%s.devices.lock", store);
    assert_string_equal(a.path, want_path);
    char *line = tu_read(want_path, NULL);
    char want[64];
    snprintf(want, sizeof want, "%ld test-a ", (long)getpid());
    assert_true(!strncmp(line, want, strlen(want)));
    snprintf(want, sizeof want, "pid %ld (test-a, since ", (long)getpid());
    assert_int_equal(in_child(store, 0, 0, want), C_BUSY_OK);   /* refused at once */
    assert_int_equal(in_child(store, 0, 300, want), C_BUSY_OK); /* waited, then refused */
    assert_int_equal(in_child(store, 1, 0, NULL), C_HELD);      /* a child of the holder */
    engine_devlock_release(&a);
    assert_int_equal(a.fd, -1);
    unsetenv(ENGINE_DEVLOCK_ENV);
    assert_int_equal(in_child(store, 0, 0, NULL), C_HELD);      /* free once let go */
    free(line);
    free(want_path);
    free(store);
    tu_tmpdir_free(dir);
}

static void lock_dir_overrides_the_store(void **state)
{
    (void)state;
    setenv("LVD_LOCK_DIR", "/run/lock/lvd", 1);
    char *p = engine_devlock_path("/x/store.db");
    assert_string_equal(p, "/run/lock/lvd/devices.lock");
    free(p);
    unsetenv("LVD_LOCK_DIR");
    p = engine_devlock_path("/x/store.db");
    assert_string_equal(p, "/x/store.db.devices.lock");
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lock_is_refused_waited_inherited_and_freed),
        cmocka_unit_test(lock_dir_overrides_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
