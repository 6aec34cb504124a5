/* test_opt.c: the option tables (common/opt.h) and the shared vocabulary
 * (common/opt_vocab.h): every kind of value into its field, the defaults,
 * every spelling of every llama.cpp option, operands among the options and
 * "--", the forms, the commands, the one-line usage errors naming the argv
 * word, --help, --version and --list-options as generated from the table.
 * stdout and stderr are captured into files to check the lines. */
#include "tests/support/testutil.h"

#include "common/cli.h"
#include "common/opt_vocab.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct options {
    lvd_tool_opts t;
    const char *model, *dev, *ts, *n_prompt, *n_gen, *name, *artifact;
    lvd_opt_ints ngl, fa, ub, ncmoe, depth;
    lvd_opt_list ctk, ctv, sm;
    int64_t ctx, threads, reps, budget_s;
    lvd_opt_strs env;
    double tol;
    int verbose, import;
} options;

/* -c max: -2; any other value goes on to the entry's kind. */
static int ctx_max(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o, (void)err;
    return strcmp(arg, "max") ? 1 : (*(int64_t *)field = -2, 0);
}

#define ONE .form = LVD_FORM(0)
static const lvd_opt table[] = {
    {LVD_OPT_MODEL, LVD_AT(model), ONE, .req = LVD_FORM(0), .help = "the model"},
    {LVD_OPT_NGL, LVD_AT(ngl), .help = "layers"},
    {LVD_OPT_FA, LVD_AT(fa), .help = "flash attention"},
    {LVD_OPT_UB, LVD_AT(ub), .help = "ubatch"},
    {LVD_OPT_CTK, LVD_AT(ctk), .help = "K types"},
    {LVD_OPT_CTV, LVD_AT(ctv), .help = "V types"},
    {LVD_OPT_NCMOE, LVD_AT(ncmoe), .help = "experts on the host"},
    {LVD_OPT_DEV, LVD_AT(dev), .help = "device"},
    {LVD_OPT_SM, LVD_AT(sm), .help = "split modes"},
    {LVD_OPT_TS, LVD_AT(ts), .help = "tensor split"},
    {LVD_OPT_THREADS, LVD_AT(threads), .help = "threads"},
    {LVD_OPT_CTX, LVD_AT(ctx), .call = ctx_max, .help = "context, or max"},
    {LVD_OPT_DEPTH, LVD_AT(depth), .help = "depths"},
    {LVD_OPT_REPS, LVD_AT(reps), .help = "repetitions"},
    {LVD_OPT_NPROMPT, LVD_AT(n_prompt), .help = "pp tests"},
    {LVD_OPT_NGEN, LVD_AT(n_gen), .help = "tg tests"},
    {.spell = "--budget", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 0, .hi = LVD_WEEK, LVD_AT(budget_s),
     .def = "15m", .help = "how long"},
    {.spell = "--env", .arg = "K=V", .kind = LVD_OPT_STRS, LVD_AT(env), .help = "a variant (repeatable)"},
    {.spell = "--tol", .arg = "X", .kind = LVD_OPT_REAL, .lo = 0, .hi = 1, LVD_AT(tol), .def = "0.5",
     .help = "a tolerance"},
    {.spell = "--verbose", .kind = LVD_OPT_FLAG, LVD_AT(verbose), .help = "more words, wrapped at eighty columns "
                                                                         "whatever the length of the help text"},
    {.spell = "--name", .arg = "NAME", .kind = LVD_OPT_STR, .flags = LVD_OPT_NONEMPTY, LVD_AT(name),
     .help = "a name"},
    {LVD_OPT_HOST},
    {.spell = "--import", .kind = LVD_OPT_FLAG, LVD_AT(import), .form = LVD_FORM(1), .help = "the other form"},
    {.spell = "--artifact", .arg = "SHA256", .kind = LVD_OPT_STR, LVD_AT(artifact), .form = LVD_FORM(1),
     .req = LVD_FORM(1), .help = "a model by its digest"},
    {LVD_OPT_JSON, .help = "JSON"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = "lvd-test",
    .about = "A tool to test the tables with.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, "[FILE...]"}, {"--import", NULL}, {NULL, NULL}},
    .exits = "0 ok, 2 usage.",
    .examples = "lvd test -m m.gguf\nlvd test --import --artifact 9739...",
};

typedef struct parse_case {
    const lvd_opt_tool *tool;
    char **argv;
    int argc;
    options o;
    lvd_opt_result r;
} parse_case;

static int parse(void *arg)
{
    parse_case *p = arg;
    return lvd_opt_parse(p->tool, p->argc, p->argv, &p->o, &p->r);
}

/* Parses argv (NULL-terminated) with tool into p; what went to stderr. */
static char *run_tool(const lvd_opt_tool *t, parse_case *p, int *rc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->tool = t;
    p->argv = argv;
    while (argv[p->argc])
        p->argc++;
    setenv("NO_COLOR", "1", 1);
    return tu_capture(STDERR_FILENO, parse, p, rc);
}

/* argv parses with the test tool without a word on stderr. */
static void parses(parse_case *p, char **argv)
{
    int rc;
    char *err = run_tool(&tool, p, &rc, argv);
    assert_string_equal(err, "");
    assert_int_equal(rc, 0);
    free(err);
}

static void every_kind_fills_its_field(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "-m", "M.gguf", "-ngl", "0,99", "--ngl", "7", "-fa", "on,0", "-ctk", "q8_0",
                    "-ctk", "f16,q4_0", "-c", "4096", "--budget", "2h", "--env", "A=1", "--env", "B=2",
                    "--tol=0.25", "--verbose", "--name", "n", "--host", "h200", "--json", "--store", "s.db", NULL};
    parse_case p;
    parses(&p, argv);
    options *o = &p.o;
    assert_string_equal(o->model, "M.gguf");
    assert_int_equal(o->ngl.n, 3); /* lists append */
    assert_int_equal(o->ngl.v[0], 0);
    assert_int_equal(o->ngl.v[1], 99);
    assert_int_equal(o->ngl.v[2], 7);
    assert_int_equal(o->fa.n, 2);
    assert_int_equal(o->fa.v[0], 1);
    assert_int_equal(o->fa.v[1], 0);
    assert_int_equal(o->ctk.n, 2); /* a word list is replaced */
    assert_string_equal(o->ctk.arg, "f16,q4_0");
    assert_string_equal(o->ctk.v[1], "q4_0");
    assert_int_equal(o->ctx, 4096);
    assert_int_equal(o->budget_s, 7200);
    assert_int_equal(o->env.n, 2);
    assert_string_equal(o->env.v[1], "B=2");
    assert_true(o->tol == 0.25);
    assert_int_equal(o->verbose, 1);
    assert_string_equal(o->name, "n");
    assert_string_equal(o->t.host, "h200");
    assert_string_equal(lvd_hostname(), "h200"); /* --host acts for that host */
    assert_int_equal(o->t.json, 1);
    assert_string_equal(o->t.store, "s.db");
    assert_int_equal(p.r.n_operands, 0);
    assert_int_equal(p.r.form, 0);
    lvd_opt_free(&tool, o);
    assert_null(o->ngl.v);
    assert_null(o->ctk.v);
    assert_null(o->env.v);

    char *own[] = {"lvd-test", "-m", "M.gguf", "-c", "max", NULL}; /* an entry's own word first */
    parses(&p, own);
    assert_int_equal(p.o.ctx, -2);
}

static void defaults_are_set_before_argv(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "-m", "M.gguf", NULL};
    parse_case p;
    parses(&p, argv);
    assert_int_equal(p.o.budget_s, 15 * 60);
    assert_true(p.o.tol == 0.5);
    assert_null(p.o.t.store); /* the environment's default is the library's to read */
}

/* The field of o in p's options holds the value "7" (or switch 1). */
static void field_is_seven(const lvd_opt *o, parse_case *p, const char *word)
{
    char *field = (char *)&p->o + o->off;
    switch (o->kind) {
    case LVD_OPT_STR: assert_string_equal(*(const char **)field, "7"); break;
    case LVD_OPT_INT: assert_int_equal(*(int64_t *)field, 7); break;
    case LVD_OPT_INTS:
        assert_int_equal(((lvd_opt_ints *)field)->n, 1);
        assert_int_equal(((lvd_opt_ints *)field)->v[0], o->flags & LVD_OPT_ONOFF ? 1 : 7);
        break;
    case LVD_OPT_LIST: assert_string_equal(((lvd_opt_list *)field)->v[0], "7"); break;
    default: fail_msg("%s: a kind this test does not know", word);
    }
}

/* Every spelling of every llama.cpp entry, with its value as the next word
 * and after '=', lands in the entry's field. */
static void every_llama_spelling_is_its_option(void **state)
{
    (void)state;
    for (const lvd_opt *o = table; o->spell; o++) {
        if (!strstr(o->spell, ", "))
            continue; /* lvd's own: one spelling */
        for (const char *s = o->spell; *s;) {
            size_t n = strcspn(s, ",");
            char *word = lvd_xstrndup(s, n), *eq = lvd_xasprintf("%s=%s", word, o->flags & LVD_OPT_ONOFF ? "1" : "7");
            char value[] = "7", on[] = "1", m[] = "-m", model[] = "7";
            char *next[] = {"lvd-test", m, model, word, o->flags & LVD_OPT_ONOFF ? on : value, NULL};
            char *joined[] = {"lvd-test", m, model, eq, NULL};
            parse_case p;
            parses(&p, next);
            field_is_seven(o, &p, word);
            lvd_opt_free(&tool, &p.o);
            parses(&p, joined);
            field_is_seven(o, &p, eq);
            lvd_opt_free(&tool, &p.o);
            free(word);
            free(eq);
            s += n;
            s += strspn(s, ", ");
        }
    }
}

static void operands_mix_with_options_and_come_first(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "a.txt", "-m", "M.gguf", "b.txt", "-ngl", "99", "--verbose", "-", NULL};
    parse_case p;
    parses(&p, argv);
    assert_int_equal(p.r.n_operands, 3);
    assert_string_equal(argv[1], "a.txt");
    assert_string_equal(argv[2], "b.txt");
    assert_string_equal(argv[3], "-");
    assert_int_equal(p.o.ngl.v[0], 99);
    lvd_opt_free(&tool, &p.o);

    /* a value is a value, whatever it looks like */
    char *values[] = {"lvd-test", "--name", "-ngl", "-m", "-fa", NULL};
    parses(&p, values);
    assert_string_equal(p.o.name, "-ngl");
    assert_string_equal(p.o.model, "-fa");
    assert_int_equal(p.r.n_operands, 0);
}

static void double_dash_ends_the_options(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "first", "-m", "M.gguf", "--", "-ngl", "99", "--json", NULL};
    parse_case p;
    parses(&p, argv);
    assert_int_equal(p.o.t.json, 0);
    assert_int_equal(p.o.ngl.n, 0);
    assert_int_equal(p.r.n_operands, 4);
    const char *rest[] = {"first", "-ngl", "99", "--json"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(rest); i++)
        assert_string_equal(argv[1 + i], rest[i]);
}

static void a_form_is_chosen_by_its_option(void **state)
{
    (void)state;
    char *argv[] = {"lvd-test", "--import", "--artifact", "abc", "--json", NULL};
    parse_case p;
    parses(&p, argv);
    assert_int_equal(p.r.form, 1);
    assert_string_equal(p.o.artifact, "abc");
}

/* A command line and the usage error it is. */
typedef struct usage_case {
    char *argv[8];
    const char *line;
} usage_case;

/* Each case's usage error is that one line and the --help hint. */
static void assert_usage_errors(const lvd_opt_tool *t, usage_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        parse_case p;
        int rc;
        char *err = run_tool(t, &p, &rc, cases[i].argv);
        char *want = lvd_xasprintf("%s: error: %s\nTry '%s --help'.\n", t->name, cases[i].line, t->name);
        assert_string_equal(err, want);
        assert_int_equal(rc, LVD_EXIT_USAGE);
        lvd_opt_free(t, &p.o);
        free(want);
        free(err);
    }
}

static void usage_errors_name_the_wrong_word(void **state)
{
    (void)state;
    usage_case cases[] = {
        {{"lvd-test", "--frob", NULL}, "unknown option '--frob'"},
        {{"lvd-test", "--verbose", "-zq", NULL}, "unknown option '-zq'"},
        {{"lvd-test", "-m", "x", "-ngl99", NULL}, "unknown option '-ngl99'"},
        {{"lvd-test", "op", "--nope=3", "-m", "x", NULL}, "unknown option '--nope=3'"},
        {{"lvd-test", "-m", NULL}, "-m needs a value"},
        {{"lvd-test", "-m", "x", "--n-gpu-layers", NULL}, "--n-gpu-layers needs a value"},
        {{"lvd-test", "-m", "x", "--json=1", NULL}, "'--json' takes no value"},
        {{"lvd-test", "-m", "x", "-ngl", "x", NULL}, "-ngl wants a comma list of 0 to 100000, not 'x'"},
        {{"lvd-test", "-m", "x", "-ngl=100001", NULL}, "-ngl wants a comma list of 0 to 100000, not '100001'"},
        {{"lvd-test", "-m", "x", "-c", "abc", NULL}, "-c wants 0 to 16777216 tokens, not 'abc'"},
        {{"lvd-test", "-m", "x", "--ctx-size=16777217", NULL}, "--ctx-size wants 0 to 16777216 tokens, not '16777217'"},
        {{"lvd-test", "-m", "x", "-t", "0", NULL}, "-t wants 1 to 4096, not '0'"},
        {{"lvd-test", "-m", "x", "--budget", "8d", NULL}, "--budget wants a duration of 0s to 7d (90s, 15m, 2h), "
                                                         "not '8d'"},
        {{"lvd-test", "-m", "x", "--tol", "2", NULL}, "--tol wants a number in [0, 1], not '2'"},
        {{"lvd-test", "-m", "x", "-fa", "maybe", NULL}, "-fa wants on, off, 1 or 0, or a comma list of them, not "
                                                       "'maybe'"},
        {{"lvd-test", "-m", "x", "-ctk", ",", NULL}, "-ctk wants a comma list, not ','"},
        {{"lvd-test", "-m", "x", "--name", "", NULL}, "--name wants a name"},
        {{"lvd-test", "-m", "x", "--host", "", NULL}, "--host wants a name"},
        {{"lvd-test", NULL}, "--model M.gguf is required"},
        {{"lvd-test", "--import", NULL}, "--artifact SHA256 is required with --import"},
        {{"lvd-test", "--import", "--artifact", "a", "-m", "x", NULL}, "-m does not go with --import"},
        {{"lvd-test", "-m", "x", "--artifact=a", NULL}, "--artifact needs --import"},
        {{"lvd-test", "--import", "--artifact", "a", "stray", NULL}, "unexpected argument 'stray'"},
    };
    assert_usage_errors(&tool, cases, LVD_ARRAY_LEN(cases));
}

/* A tool whose table has none of llama.cpp's options. */
static const lvd_opt plain_table[] = {{LVD_OPT_JSON, .help = "JSON"}, {0}};
static const lvd_opt_tool plain = {.name = "lvd-plain", .opts = plain_table};

static void a_tool_without_an_option_takes_none_of_its_spellings(void **state)
{
    (void)state;
    usage_case cases[] = {
        {{"lvd-plain", "-ngl", "99", NULL}, "unknown option '-ngl'"},
        {{"lvd-plain", "--n-gpu-layers", "99", NULL}, "unknown option '--n-gpu-layers'"},
        {{"lvd-plain", "stray", NULL}, "unexpected argument 'stray'"},
    };
    assert_usage_errors(&plain, cases, LVD_ARRAY_LEN(cases));
}

/* What parsing argv with the test tool wrote on stdout; its return in *rc. */
static char *stdout_of(parse_case *p, int *rc, char **argv)
{
    memset(p, 0, sizeof *p);
    p->tool = &tool;
    p->argv = argv;
    while (argv[p->argc])
        p->argc++;
    return tu_capture(STDOUT_FILENO, parse, p, rc);
}

static void help_version_and_list_stop_the_parse(void **state)
{
    (void)state;
    char *help[] = {"lvd-test", "--json", "-h", "--store", "s", NULL};
    parse_case p;
    int rc;
    char *out = stdout_of(&p, &rc, help);
    assert_int_equal(rc, -1);
    assert_int_equal(p.o.t.json, 1); /* what came before it */
    assert_null(p.o.t.store);        /* not what came after */
    assert_true(lvd_starts_with(out, "usage: lvd test -m M.gguf [-ngl N,...]"));
    free(out);

    char *version[] = {"lvd-test", "--version", "--frob", NULL};
    out = stdout_of(&p, &rc, version);
    assert_int_equal(rc, -1);
    assert_string_equal(out, "lvd-test (llama-verdict) " LVD_VERSION "\n");
    free(out);

    char *list[] = {"lvd-test", "--list-options", NULL};
    out = stdout_of(&p, &rc, list);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(out, "\n-ngl N,...\n--n-gpu-layers N,...\n--ngl N,...\n"));
    assert_non_null(strstr(out, "\n--json\n"));
    assert_non_null(strstr(out, "\n--help\n--version\n"));
    free(out);
}

static void help_is_generated_from_the_table(void **state)
{
    (void)state;
    char *help[] = {"lvd-test", "--help", NULL};
    parse_case p;
    int rc;
    char *out = stdout_of(&p, &rc, help);
    for (char *line = out, *end; *line; line = end + 1) { /* 80 columns */
        end = strchr(line, '\n');
        assert_non_null(end);
        assert_in_range(end - line, 0, 80);
    }
    assert_non_null(strstr(out, "\n       lvd test --import --artifact SHA256 [-ngl N,...]"));
    for (const lvd_opt *o = table; o->spell; o++)
        assert_non_null(strstr(out, o->spell));
    assert_non_null(strstr(out, "[--env K=V]..."));
    assert_non_null(strstr(out, "how long (default 15m)"));
    assert_non_null(strstr(out, "(env: LVD_STORE)"));
    assert_non_null(strstr(out, "a model by its digest (with --import)"));
    assert_non_null(strstr(out, "  --verbose           more words, wrapped at eighty columns whatever the length\n"
                                "                      of the help text\n"));
    assert_non_null(strstr(out, "\nexit: 0 ok, 2 usage.\n"));
    assert_non_null(strstr(out, "\nexamples:\n  lvd test -m m.gguf\n  lvd test --import --artifact 9739...\n"));
    free(out);
}

/* --- commands ---------------------------------------------------------------- */

typedef struct cmd_options {
    lvd_tool_opts t;
    int64_t limit;
    lvd_opt_strs engines;
} cmd_options;

#define AT(f) .off = offsetof(cmd_options, f)
static const lvd_opt run_opts[] = {
    {.spell = "--limit", .arg = "N", .kind = LVD_OPT_INT, .lo = 0, .hi = 100, AT(limit), .def = "50"}, {0}};
static const lvd_opt add_opts[] = {{.spell = "--engine", .arg = "NAME", .kind = LVD_OPT_STRS, AT(engines)}, {0}};
static const lvd_opt cmd_table[] = {{.spell = "--json", .kind = LVD_OPT_FLAG, AT(t.json)}, {0}};
static const lvd_opt_cmd cmds[] = {
    {"run", NULL, "runs it", run_opts, NULL},
    {"add", "FILE...", "adds them", add_opts, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};
static const lvd_opt_tool cmd_tool = {.name = "lvd-cmd", .opts = cmd_table, .cmds = cmds};

typedef struct cmd_case {
    char **argv;
    int argc;
    cmd_options o;
    lvd_opt_result r;
} cmd_case;

static int parse_cmd(void *arg)
{
    cmd_case *c = arg;
    return lvd_opt_parse(&cmd_tool, c->argc, c->argv, &c->o, &c->r);
}

static void cmd_parses(cmd_case *c, char **argv)
{
    memset(c, 0, sizeof *c);
    c->argv = argv;
    while (argv[c->argc])
        c->argc++;
    int rc;
    char *err = tu_capture(STDERR_FILENO, parse_cmd, c, &rc);
    assert_string_equal(err, "");
    assert_int_equal(rc, 0);
    free(err);
}

static void commands_take_their_own_options(void **state)
{
    (void)state;
    cmd_case c;
    char *a[] = {"lvd-cmd", "--json", "run", "--limit", "5", NULL};
    cmd_parses(&c, a);
    assert_string_equal(c.r.cmd->name, "run");
    assert_int_equal(c.o.limit, 5);
    assert_int_equal(c.o.t.json, 1);
    assert_int_equal(c.r.n_operands, 0);
    char *before[] = {"lvd-cmd", "--limit", "5", "run", NULL}; /* its options before it */
    cmd_parses(&c, before);
    assert_string_equal(c.r.cmd->name, "run");
    assert_int_equal(c.o.limit, 5);
    char *dflt[] = {"lvd-cmd", "run", NULL};
    cmd_parses(&c, dflt);
    assert_int_equal(c.o.limit, 50);
    char *add[] = {"lvd-cmd", "add", "f1", "--engine", "a", "f2", "--engine", "b", NULL};
    cmd_parses(&c, add);
    assert_string_equal(c.r.cmd->name, "add");
    assert_int_equal(c.r.n_operands, 2);
    assert_string_equal(add[1], "f1");
    assert_string_equal(add[2], "f2");
    assert_int_equal(c.o.engines.n, 2);
    lvd_opt_free(&cmd_tool, &c.o);

    usage_case cases[] = {
        {{"lvd-cmd", "run", "--engine", "x", NULL}, "unknown option '--engine'"},
        {{"lvd-cmd", NULL}, "missing COMMAND (run, add)"},
        {{"lvd-cmd", "--json", "frob", NULL}, "unknown command 'frob' (run, add)"},
        {{"lvd-cmd", "run", "x", NULL}, "unexpected argument 'x'"},
    };
    for (size_t i = 0; i < LVD_ARRAY_LEN(cases); i++) {
        memset(&c, 0, sizeof c);
        c.argv = cases[i].argv;
        while (c.argv[c.argc])
            c.argc++;
        int rc;
        char *err = tu_capture(STDERR_FILENO, parse_cmd, &c, &rc);
        char *want = lvd_xasprintf("lvd-cmd: error: %s\nTry 'lvd-cmd --help'.\n", cases[i].line);
        assert_string_equal(err, want);
        assert_int_equal(rc, LVD_EXIT_USAGE);
        free(want);
        free(err);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_kind_fills_its_field),
        cmocka_unit_test(defaults_are_set_before_argv),
        cmocka_unit_test(every_llama_spelling_is_its_option),
        cmocka_unit_test(operands_mix_with_options_and_come_first),
        cmocka_unit_test(double_dash_ends_the_options),
        cmocka_unit_test(a_form_is_chosen_by_its_option),
        cmocka_unit_test(usage_errors_name_the_wrong_word),
        cmocka_unit_test(a_tool_without_an_option_takes_none_of_its_spellings),
        cmocka_unit_test(help_version_and_list_stop_the_parse),
        cmocka_unit_test(help_is_generated_from_the_table),
        cmocka_unit_test(commands_take_their_own_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
