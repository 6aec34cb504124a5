/* test_cli.c: what every tool's main shares (common/cli.h): the --store,
 * --json, --help and --version options through lvd_tool_parse with a tool's own, their
 * one-line usage errors, stray operands, and opening the store with the
 * store exit code. stderr is captured into a file to check the lines. */
#include "tests/support/testutil.h"

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

/* Runs fn with file descriptor fd (stdout or stderr) going to a temporary
 * file; returns what it wrote. */
static char *capture_fd(int fd, int (*fn)(void *), void *arg, int *rc)
{
    char *dir = tu_tmpdir();
    char *path = lvd_xasprintf("%s/captured", dir);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(fd);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), fd);
    *rc = fn(arg);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, fd);
    close(saved);
    fclose(f);
    char *text = tu_read(path, NULL);
    free(path);
    tu_tmpdir_free(dir);
    return text;
}

static char *capture_stderr(int (*fn)(void *), void *arg, int *rc)
{
    return capture_fd(STDERR_FILENO, fn, arg, rc);
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

/* argc of a NULL-terminated argv. */
static int argv_len(char **argv)
{
    int n = 0;
    while (argv[n])
        n++;
    return n;
}

static char *run_parse(parse_case *p, int *rc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->argv = argv;
    p->argc = argv_len(argv);
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

/* A command line and the usage error it is (LINE of assert_usage_error). */
typedef struct usage_case {
    char *argv[6];
    const char *line;
} usage_case;

/* err, what a parse that returned rc wrote, is the one usage error line
 * "lvd-test: error: LINE" and the --help hint (frees err). */
static void assert_usage_error(char *err, int rc, const char *line)
{
    char *want = lvd_xasprintf("lvd-test: error: %s\nTry 'lvd-test --help'.\n", line);
    assert_int_equal(rc, LVD_EXIT_USAGE);
    assert_string_equal(err, want);
    free(want);
    free(err);
}

/* --version answers on stdout in help2man's form "NAME (PACKAGE) VERSION" and
 * stops the tool (exit 0) without its usage; nothing on stderr. */
static void version_prints_one_line_and_stops(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "--store", "s", "--version", "--other", "v", NULL};
    parse_case p;
    memset(&p, 0, sizeof p);
    p.argv = argv;
    p.argc = 6;
    int rc;
    usage_calls = 0;
    char *out = capture_fd(STDOUT_FILENO, parse, &p, &rc);
    assert_int_equal(rc, -1);
    assert_int_equal(usage_calls, 0);
    assert_null(p.other); /* stopped at --version */
    assert_string_equal(out, "lvd-test (llama-verdict) " LVD_VERSION "\n");
    free(out);
    char *err = run_parse(&p, &rc, argv);
    assert_int_equal(rc, -1);
    assert_string_equal(err, "");
    free(err);
}

static void bad_command_lines_are_one_usage_error(void **state)
{
    (void)state;
    usage_case cases[] = {
        {{"lvd-test", "--frob", NULL}, "unknown option '--frob'"},
        {{"lvd-test", "-x", NULL}, "unknown option '-x'"},
        {{"lvd-test", "--store", NULL}, "--store needs a value"},
        {{"lvd-test", "--other", NULL}, "--other needs a value"},
        {{"lvd-test", "--json", "stray", NULL}, "unexpected argument 'stray'"},
        {{"lvd-test", "--host", "", NULL}, "--host wants a name"},
        {{"lvd-test", "--other", "bad", NULL}, "--other wants a good value, not 'bad'"},
        /* a tool without the option takes none of llama.cpp's spellings of it */
        {{"lvd-test", "-ngl", "99", NULL}, "unknown option '-ngl'"},
        {{"lvd-test", "--n-gpu-layers", "99", NULL}, "unknown option '--n-gpu-layers'"},
    };
    setenv("NO_COLOR", "1", 1);
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        parse_case p;
        int rc;
        char *err = run_parse(&p, &rc, cases[i].argv);
        assert_usage_error(err, rc, cases[i].line);
    }
}

/* --- llama.cpp's spellings -------------------------------------------------- */

enum { L_NGL = 256, L_FA, L_UB, L_CTK, L_CTV, L_NCMOE, L_THREADS, L_CTX, L_REPS, L_NPROMPT, L_NGEN,
       L_DEVICE, L_OTHER };

/* A llama-bench-like tool: lvd's own long names (as lvd bench spells them),
 * a short -m and a flag -v; what it was given, in order. */
typedef struct llama_case {
    char **argv;
    int argc;
    lvd_tool_opts t;
    int c[16];
    const char *arg[16];
    size_t n;
} llama_case;

static int record_option(void *opts, int c, const char *arg)
{
    llama_case *p = opts;
    assert_true(p->n < LVD_ARRAY_LEN(p->c));
    p->c[p->n] = c;
    p->arg[p->n++] = arg;
    return 0;
}

static int llama_parse(void *arg)
{
    llama_case *p = arg;
    static const struct option longopts[] = {
        {"model", required_argument, NULL, 'm'},
        {"ngl", required_argument, NULL, L_NGL},
        {"fa", required_argument, NULL, L_FA},
        {"ub", required_argument, NULL, L_UB},
        {"ctk", required_argument, NULL, L_CTK},
        {"ctv", required_argument, NULL, L_CTV},
        {"ncmoe", required_argument, NULL, L_NCMOE},
        {"threads", required_argument, NULL, L_THREADS},
        {"ctx", required_argument, NULL, L_CTX},
        {"reps", required_argument, NULL, L_REPS},
        {"n-prompt", required_argument, NULL, L_NPROMPT},
        {"n-gen", required_argument, NULL, L_NGEN},
        {"device", required_argument, NULL, L_DEVICE},
        {"other", required_argument, NULL, L_OTHER},
        {"verbose", no_argument, NULL, 'v'},
        LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    optind = 0;
    return lvd_tool_parse("lvd-test", p->argc, p->argv, ":hvm:", longopts, usage, &p->t, record_option, p);
}

static char *run_llama(llama_case *p, int *rc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->argv = argv;
    p->argc = argv_len(argv);
    return capture_stderr(llama_parse, p, rc);
}

/* Parses argv into p, which must succeed without a word on stderr. */
static void llama_ok(llama_case *p, char **argv)
{
    int rc;
    char *err = run_llama(p, &rc, argv);
    assert_int_equal(rc, 0);
    assert_string_equal(err, "");
    free(err);
}

/* argv parses without a word on stderr to exactly one option: c with arg. */
static void parses_to(char **argv, int c, const char *arg)
{
    llama_case p;
    llama_ok(&p, argv);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.c[0], c);
    assert_string_equal(p.arg[0], arg);
    assert_int_equal(optind, p.argc);
}

static void every_llama_spelling_is_its_option(void **state)
{
    (void)state;
    static const struct {
        const char *word, *llama_long, *lvd_long;
        int c;
    } aliases[] = {
        {"-m", "--model", "--model", 'm'},
        {"-ngl", "--n-gpu-layers", "--ngl", L_NGL},
        {"-fa", "--flash-attn", "--fa", L_FA},
        {"-ub", "--ubatch-size", "--ub", L_UB},
        {"-ctk", "--cache-type-k", "--ctk", L_CTK},
        {"-ctv", "--cache-type-v", "--ctv", L_CTV},
        {"-ncmoe", "--n-cpu-moe", "--ncmoe", L_NCMOE},
        {"-dev", "--device", "--device", L_DEVICE},
        {"-t", "--threads", "--threads", L_THREADS},
        {"-c", "--ctx-size", "--ctx", L_CTX},
        {"-r", "--repetitions", "--reps", L_REPS},
        {"-p", "--n-prompt", "--n-prompt", L_NPROMPT},
        {"-n", "--n-gen", "--n-gen", L_NGEN},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(aliases); i++) {
        char *word = (char *)aliases[i].word, *llama = (char *)aliases[i].llama_long;
        char *lvd = (char *)aliases[i].lvd_long, value[] = "0,99";
        char *a[] = {"lvd-test", word, value, NULL};
        char *b[] = {"lvd-test", llama, value, NULL};
        char *c[] = {"lvd-test", lvd, value, NULL};
        parses_to(a, aliases[i].c, "0,99");
        parses_to(b, aliases[i].c, "0,99");
        parses_to(c, aliases[i].c, "0,99");
        char *eq = lvd_xasprintf("%s=7", word), *lleq = lvd_xasprintf("%s=7", llama);
        char *d[] = {"lvd-test", eq, NULL};
        char *e[] = {"lvd-test", lleq, NULL};
        parses_to(d, aliases[i].c, "7");
        parses_to(e, aliases[i].c, "7");
        free(eq);
        free(lleq);
    }
}

static void short_and_long_spellings_parse_the_same(void **state)
{
    (void)state;
    char *llama[] = {"lvd-test", "-m", "M.gguf", "-ngl", "99", "-fa", "1", "-r", "3", "--json", NULL};
    char *lvd[] = {"lvd-test", "--model", "M.gguf", "--n-gpu-layers", "99", "--flash-attn", "1",
                   "--reps", "3", "--json", NULL};
    llama_case p, q;
    llama_ok(&p, llama);
    llama_ok(&q, lvd);
    assert_int_equal(p.n, 4);
    assert_int_equal(p.n, q.n);
    assert_int_equal(p.t.json, 1);
    assert_int_equal(q.t.json, 1);
    for (size_t i = 0; i < p.n; i++) {
        assert_int_equal(p.c[i], q.c[i]);
        assert_string_equal(p.arg[i], q.arg[i]);
    }
    assert_int_equal(p.c[1], L_NGL);
    assert_string_equal(p.arg[1], "99");
}

static void operands_mix_with_llama_words(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "import", "-m", "M.gguf", "out.jsonl", "-ngl", "99", "-v", "-", NULL};
    llama_case p;
    llama_ok(&p, argv);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.c[0], 'm');
    assert_string_equal(p.arg[0], "M.gguf");
    assert_int_equal(p.c[1], L_NGL);
    assert_string_equal(p.arg[1], "99");
    assert_int_equal(p.c[2], 'v');
    /* the operands last, in their order, as getopt_long leaves them */
    assert_int_equal(optind, 6);
    assert_string_equal(argv[6], "import");
    assert_string_equal(argv[7], "out.jsonl");
    assert_string_equal(argv[8], "-");

    /* a value is a value, whatever it looks like */
    char *values[] = {"lvd-test", "--other", "-ngl", "-m", "-fa", NULL};
    llama_ok(&p, values);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.arg[0], "-ngl");
    assert_int_equal(p.c[1], 'm');
    assert_string_equal(p.arg[1], "-fa");
}

static void double_dash_ends_the_options(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "first", "-m", "M.gguf", "--", "-ngl", "99", "--json", NULL};
    llama_case p;
    llama_ok(&p, argv);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.t.json, 0);
    assert_int_equal(optind, 4);
    assert_string_equal(argv[3], "--");
    const char *rest[] = {"first", "-ngl", "99", "--json"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(rest); i++)
        assert_string_equal(argv[4 + i], rest[i]);
}

static void usage_errors_name_the_wrong_word(void **state)
{
    (void)state;
    usage_case cases[] = {
        {{"lvd-test", "--verbose", "-zq", NULL}, "unknown option '-zq'"},
        {{"lvd-test", "-m", "x", "-q", NULL}, "unknown option '-q'"},
        {{"lvd-test", "-m", "x", "-ngl", NULL}, "-ngl needs a value"},
        {{"lvd-test", "-m", NULL}, "-m needs a value"},
        {{"lvd-test", "--n-gpu-layers", NULL}, "--n-gpu-layers needs a value"},
        {{"lvd-test", "-vz", NULL}, "unknown option '-z' in '-vz'"},
        {{"lvd-test", "-vm", NULL}, "'-m' in '-vm' needs a value"},
        {{"lvd-test", "--json=1", NULL}, "'--json' takes no value"},
        {{"lvd-test", "op", "--nope=3", "-m", "x", NULL}, "unknown option '--nope=3'"},
        {{"lvd-test", "-ngl99", NULL}, "unknown option '-ngl99'"},
    };
    setenv("NO_COLOR", "1", 1);
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        llama_case p;
        int rc;
        char *err = run_llama(&p, &rc, cases[i].argv);
        assert_usage_error(err, rc, cases[i].line);
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

typedef struct wait_case {
    const char *arg;
    int64_t seconds;
} wait_case;

static int parse_wait(void *arg)
{
    wait_case *w = arg;
    return lvd_parse_wait("lvd-test", w->arg, &w->seconds);
}

/* --wait: 0 s to 7 days; anything else one usage error naming the word. */
static void wait_takes_durations_up_to_a_week(void **state)
{
    (void)state;
    setenv("NO_COLOR", "1", 1);
    const struct {
        const char *arg;
        int rc;
        int64_t seconds;
    } cases[] = {{"0", 0, 0}, {"90s", 0, 90}, {"10m", 0, 600}, {"168h", 0, 7 * 86400},
                 {"169h", LVD_EXIT_USAGE, 0}, {"-1", LVD_EXIT_USAGE, 0}, {"soon", LVD_EXIT_USAGE, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wait_case w = {cases[i].arg, -5};
        int rc;
        char *err = capture_stderr(parse_wait, &w, &rc);
        assert_int_equal(rc, cases[i].rc);
        if (rc == 0) {
            assert_int_equal(w.seconds, cases[i].seconds);
            assert_string_equal(err, "");
        } else {
            char *want = lvd_xasprintf("lvd-test: error: --wait wants a duration like 90s or 10m, not '%s'\n",
                                       cases[i].arg);
            assert_true(lvd_starts_with(err, want));
            free(want);
        }
        free(err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shared_options_fill_the_struct),
        cmocka_unit_test(help_prints_usage_and_stops),
        cmocka_unit_test(version_prints_one_line_and_stops),
        cmocka_unit_test(bad_command_lines_are_one_usage_error),
        cmocka_unit_test(every_llama_spelling_is_its_option),
        cmocka_unit_test(short_and_long_spellings_parse_the_same),
        cmocka_unit_test(operands_mix_with_llama_words),
        cmocka_unit_test(double_dash_ends_the_options),
        cmocka_unit_test(usage_errors_name_the_wrong_word),
        cmocka_unit_test(store_open_maps_errors_to_the_store_exit_code),
        cmocka_unit_test(fail_prints_the_error_line),
        cmocka_unit_test(wait_takes_durations_up_to_a_week),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
