/* test_cli.c: what every tool's main shares (common/cli.h): the --store,
 * --json and --help options through lvd_tool_parse with a tool's own, their
 * one-line usage errors, stray operands, and opening the store with the
 * store exit code. stderr is captured into a file to check the lines. */
#include "tests/testutil.h"

#include "common/cli.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int usage_calls;
static void usage(FILE *f)
{
    (void)f;
    usage_calls++;
}

/* Runs fn with stderr going to a temporary file; returns what it wrote. */
static char *capture_stderr(int (*fn)(void *), void *arg, int *rc)
{
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/stderr", dir);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), STDERR_FILENO);
    *rc = fn(arg);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    fclose(f);
    char *text = tu_read(path, NULL);
    free(path);
    tu_tmpdir_free(dir);
    return text;
}

typedef struct parse_case {
    char **argv;
    int argc;
    lvd_tool_opts t;
    const char *other; /* --other VALUE */
} parse_case;

/* The test tool's own option: --other VALUE. */
static int other_option(void *opts, int c, const char *arg)
{
    parse_case *p = opts;
    assert_int_equal(c, 'o');
    if (!strcmp(arg, "bad"))
        return lvd_usage_error("lvd-test", "--other wants a good value, not '%s'", arg);
    p->other = arg;
    return 0;
}

/* A tool's parse: its own option and the shared ones, then no operands. */
static int parse(void *arg)
{
    parse_case *p = arg;
    static const struct option longopts[] = {
        {"other", required_argument, NULL, 'o'}, LVD_TOOL_HOST_LONGOPT, LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    int rc = lvd_tool_parse("lvd-test", p->argc, p->argv, ":h", longopts, usage, &p->t, other_option, p);
    return rc != 0 ? rc : lvd_tool_no_operands("lvd-test", p->argc, p->argv);
}

static char *run_parse(parse_case *p, int *rc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->argv = argv;
    while (argv[p->argc])
        p->argc++;
    return capture_stderr(parse, p, rc);
}

static void shared_options_fill_the_struct(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "--store", "/x/s.db", "--other", "v", "--json", "--host", "h200", NULL};
    parse_case p;
    int rc;
    char *err = run_parse(&p, &rc, argv);
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    assert_string_equal(p.t.store, "/x/s.db");
    assert_int_equal(p.t.json, 1);
    assert_string_equal(p.other, "v");
    assert_string_equal(p.t.host, "h200");
    free(err);

    char *plain[] = {"lvd-test", NULL};
    err = run_parse(&p, &rc, plain);
    assert_int_equal(rc, 0);
    assert_null(p.t.store);
    assert_int_equal(p.t.json, 0);
    assert_null(p.t.host);
    free(err);
}

static void help_prints_usage_and_stops(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "--json", "-h", "--store", "s", NULL};
    parse_case p;
    int rc;
    usage_calls = 0;
    char *err = run_parse(&p, &rc, argv);
    assert_int_equal(rc, -1);
    assert_int_equal(usage_calls, 1);
    assert_null(p.t.store);
    assert_string_equal(err, "");
    free(err);
    char *longform[] = {"lvd-test", "--help", NULL};
    err = run_parse(&p, &rc, longform);
    assert_int_equal(rc, -1);
    assert_int_equal(usage_calls, 2);
    free(err);
}

static void bad_command_lines_are_one_usage_error(void **state)
{
    (void)state;
    struct {
        char *argv[4];
        const char *first_line;
    } cases[] = {
        {{"lvd-test", "--frob", NULL}, "lvd-test: usage: unknown option '--frob'\n"},
        {{"lvd-test", "-x", NULL}, "lvd-test: usage: unknown option '-x'\n"},
        {{"lvd-test", "--store", NULL}, "lvd-test: usage: --store needs a value\n"},
        {{"lvd-test", "--other", NULL}, "lvd-test: usage: --other needs a value\n"},
        {{"lvd-test", "--json", "stray", NULL}, "lvd-test: usage: unexpected argument 'stray'\n"},
        {{"lvd-test", "--host", "", NULL}, "lvd-test: usage: --host wants a name\n"},
        {{"lvd-test", "--other", "bad", NULL}, "lvd-test: usage: --other wants a good value, not 'bad'\n"},
    };
    setenv("NO_COLOR", "1", 1);
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        parse_case p;
        int rc;
        char *err = run_parse(&p, &rc, cases[i].argv);
        assert_int_equal(rc, LVD_EXIT_USAGE);
        size_t n = strlen(cases[i].first_line);
        assert_true(strlen(err) > n);
        assert_memory_equal(err, cases[i].first_line, n);
        assert_string_equal(err + n, "Try 'lvd-test --help'.\n");
        free(err);
    }
}

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
    char *err = capture_stderr(open_it, &o, &rc);
    assert_int_equal(rc, LVD_EXIT_STORE);
    assert_null(o.s);
    assert_true(lvd_starts_with(err, "lvd-test: error: "));
    assert_non_null(strstr(err, path));
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
    assert_int_not_equal(access(path, F_OK), 0);                      /* nothing created */
    free(err);

    o.flags = STORE_OPEN_CREATE;
    err = capture_stderr(open_it, &o, &rc);
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
    char *err = capture_stderr(fail_it, &e, &rc);
    assert_int_equal(rc, LVD_EXIT_INPUT);
    assert_string_equal(err, "lvd-test: error: m.gguf: not a GGUF file\n");
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_options_fill_the_struct),
        cmocka_unit_test(help_prints_usage_and_stops),
        cmocka_unit_test(bad_command_lines_are_one_usage_error),
        cmocka_unit_test(store_open_maps_errors_to_the_store_exit_code),
        cmocka_unit_test(fail_prints_the_error_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
