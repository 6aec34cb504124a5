/* test_cli.c: what every tool's main shares (common/cli.h) besides parsing
 * its command line (test_opt.c): opening the store with the store exit code,
 * and an error carried up printed as the tool's one error line. stderr is
 * captured into a file to check the lines. */
#include "tests/support/testutil.h"

#include "common/cli.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct open_case {
    const char *path;
    int flags;
    store *s;
} open_case;

static int open_it(void *arg)
{
    open_case *o = arg;
    return store_tool_open("lvd-test", o->path, o->flags, &o->s);
}

static void store_open_maps_errors_to_the_store_exit_code(void **state)
{
    (void)state;
    setenv("NO_COLOR", "1", 1);
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/store.db", dir);
    open_case o = {.path = path, .flags = 0, .s = (store *)&o};
    int rc;
    char *err = tu_capture(STDERR_FILENO, open_it, &o, &rc);
    assert_int_equal(rc, LVD_EXIT_STORE);
    assert_null(o.s);
    assert_true(lvd_starts_with(err, "lvd-test: error: "));
    assert_non_null(strstr(err, path));
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
    assert_int_not_equal(access(path, F_OK), 0);                      /* nothing created */
    free(err);

    o.flags = STORE_OPEN_CREATE;
    err = tu_capture(STDERR_FILENO, open_it, &o, &rc);
    assert_int_equal(rc, LVD_EXIT_OK);
    assert_non_null(o.s);
    assert_string_equal(store_path(o.s), path);
    assert_string_equal(err, "");
    store_close(o.s);
    free(err);
    free(path);
    tu_tmpdir_free(dir);
}

static int fail_it(void *arg)
{
    return lvd_tool_fail("lvd-test", arg, LVD_EXIT_INPUT);
}

static void fail_prints_the_error_line(void **state)
{
    (void)state;
    setenv("NO_COLOR", "1", 1);
    lvd_err e = {{0}};
    lvd_errf(&e, "m.gguf: not a GGUF file");
    int rc;
    char *err = tu_capture(STDERR_FILENO, fail_it, &e, &rc);
    assert_int_equal(rc, LVD_EXIT_INPUT);
    assert_string_equal(err, "lvd-test: error: m.gguf: not a GGUF file\n");
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(store_open_maps_errors_to_the_store_exit_code),
        cmocka_unit_test(fail_prints_the_error_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
