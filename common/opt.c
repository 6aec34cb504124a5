/* opt.c: parsing a tool's command line over its option table (see opt.h):
 * finding an argv word's entry, the value into the entry's field by its
 * kind, the defaults, the forms, the required options and the operands.
 * Not for --help or --list-options (opt_help.c), nor for the entries
 * themselves (the tools, common/opt_vocab.h). */
#include "common/opt.h"

#include "common/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ENTRIES 64 /* per table; a tool's table and its command's */

/* --- spellings -------------------------------------------------------------- */

/* 1 when w[0..len) is one of o's spellings. */
static int spelled_n(const lvd_opt *o, const char *w, size_t len)
{
    for (const char *s = o->spell; *s;) {
        size_t n = strcspn(s, ",");
        if (n == len && !strncmp(s, w, len))
            return 1;
        s += n;
        s += strspn(s, ", ");
    }
    return 0;
}

int lvd_opt_spelled(const lvd_opt *o, const char *w)
{
    return spelled_n(o, w, strcspn(w, "="));
}

/* --- values ---------------------------------------------------------------- */

/* Seconds as the largest unit that divides them: "7d", "1h", "90s". */
static const char *duration_text(double secs, char *buf, size_t len)
{
    static const struct { const char *unit; int64_t s; } units[] = {{"d", 86400}, {"h", 3600}, {"m", 60}};
    int64_t v = (int64_t)secs;
    for (size_t i = 0; i < LVD_ARRAY_LEN(units); i++)
        if (v && v % units[i].s == 0) {
            snprintf(buf, len, "%lld%s", (long long)(v / units[i].s), units[i].unit);
            return buf;
        }
    snprintf(buf, len, "%llds", (long long)v);
    return buf;
}

int lvd_opt_int(const lvd_opt *o, const char *arg, int64_t *v, lvd_err *err)
{
    if (lvd_parse_i64(arg, v) || *v < o->lo || *v > o->hi)
        return lvd_errf(err, "wants %.0f to %.0f%s%s, not '%s'", o->lo, o->hi, o->unit ? " " : "",
                        o->unit ? o->unit : "", arg);
    return 0;
}

/* "a,b,c" appended to l: numbers in o's range, or switches (on/off) for ONOFF. */
static int set_ints(const lvd_opt *o, const char *arg, lvd_opt_ints *l, lvd_err *err)
{
    size_t n;
    char **items = lvd_split(arg, ',', &n);
    int ok = n > 0, onoff = o->flags & LVD_OPT_ONOFF;
    l->v = lvd_xrealloc(l->v, (l->n + n + 1) * sizeof *l->v);
    for (size_t i = 0; i < n && ok; i++) {
        int64_t v;
        int on;
        if (onoff && !lvd_parse_onoff(items[i], &on))
            v = on;
        else if (onoff || lvd_parse_i64(items[i], &v) || v < o->lo || v > o->hi)
            ok = 0;
        if (ok)
            l->v[l->n++] = (int)v;
    }
    lvd_strv_free(items);
    if (ok)
        return 0;
    if (onoff)
        return lvd_errf(err, "wants on, off, 1 or 0, or a comma list of them, not '%s'", arg);
    return lvd_errf(err, "wants a comma list of %.0f to %.0f%s%s, not '%s'", o->lo, o->hi, o->unit ? " " : "",
                    o->unit ? o->unit : "", arg);
}

static int set_duration(const lvd_opt *o, const char *arg, int64_t *v, lvd_err *err)
{
    char lo[24], hi[24];
    if (lvd_parse_duration(arg, v) || *v < o->lo || *v > o->hi)
        return lvd_errf(err, "wants a duration of %s to %s (90s, 15m, 2h), not '%s'",
                        duration_text(o->lo, lo, sizeof lo), duration_text(o->hi, hi, sizeof hi), arg);
    return 0;
}

static int set_real(const lvd_opt *o, const char *arg, double *v, lvd_err *err)
{
    if (lvd_parse_double(arg, v) || !(*v >= o->lo && *v <= o->hi))
        return lvd_errf(err, "wants a number in [%g, %g], not '%s'", o->lo, o->hi, arg);
    return 0;
}

/* "--host wants a name": the value's name in lower case. */
static int wants_a(const lvd_opt *o, lvd_err *err)
{
    char name[32];
    size_t i = 0;
    for (; o->arg && o->arg[i] && i + 1 < sizeof name; i++)
        name[i] = (char)(o->arg[i] >= 'A' && o->arg[i] <= 'Z' ? o->arg[i] - 'A' + 'a' : o->arg[i]);
    name[i] = '\0';
    return lvd_errf(err, "wants a %s", name);
}

static int set_list(const char *arg, lvd_opt_list *l, lvd_err *err)
{
    lvd_strv_free(l->v);
    l->v = lvd_split(arg, ',', &l->n);
    l->arg = arg;
    return l->n ? 0 : lvd_errf(err, "wants a comma list, not '%s'", arg);
}

/* The value arg of o into its field in opts. 0 or -1 with err. */
static int set_value(const lvd_opt *o, void *opts, const char *arg, lvd_err *err)
{
    void *field = (char *)opts + o->off;
    int rc = o->call ? o->call(o, field, arg, err) : 1;
    if (rc <= 0)
        return rc;
    switch (o->kind) {
    case LVD_OPT_FLAG: *(int *)field = 1; return 0;
    case LVD_OPT_STR:
        if ((o->flags & LVD_OPT_NONEMPTY) && !*arg)
            return wants_a(o, err);
        *(const char **)field = arg;
        return 0;
    case LVD_OPT_STRS: {
        lvd_opt_strs *s = field;
        s->v = lvd_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
        s->v[s->n++] = arg;
        return 0;
    }
    case LVD_OPT_INT: return lvd_opt_int(o, arg, field, err);
    case LVD_OPT_INTS: return set_ints(o, arg, field, err);
    case LVD_OPT_REAL: return set_real(o, arg, field, err);
    case LVD_OPT_DURATION: return set_duration(o, arg, field, err);
    case LVD_OPT_LIST: return set_list(arg, field, err);
    case LVD_OPT_CALL: break;
    }
    return 0;
}

/* --- the parse -------------------------------------------------------------- */

typedef struct parse {
    const lvd_opt_tool *tool;
    const lvd_opt *tables[2];   /* the tool's, its command's */
    const char *given[2][MAX_ENTRIES]; /* the argv word each entry was given as */
    void *opts;
} parse;

/* The entry spelled w[0..len), its table in *t and index in *i; NULL when none. */
static const lvd_opt *find(const parse *p, const char *w, size_t len, int *t, int *i)
{
    for (*t = 0; *t < 2; (*t)++)
        for (*i = 0; p->tables[*t] && p->tables[*t][*i].spell; (*i)++)
            if (spelled_n(&p->tables[*t][*i], w, len))
                return &p->tables[*t][*i];
    return NULL;
}

/* An error about argv word w (its value after '=' left out): LVD_EXIT_USAGE. */
static int word_error(const parse *p, const char *w, const char *what)
{
    return lvd_usage_error(p->tool->name, "%.*s %s", (int)strcspn(w, "="), w, what);
}

/* -h, --help, --version, --list-options: printed; 1 when w is one of them. */
static int answered(const lvd_opt_tool *tool, const char *w)
{
    if (!strcmp(w, "-h") || !strcmp(w, "--help"))
        lvd_opt_help(tool, stdout);
    else if (!strcmp(w, "--version"))
        printf("%s (llama-verdict) %s\n", tool->name, LVD_VERSION);
    else if (!strcmp(w, "--list-options"))
        lvd_opt_list_options(tool, stdout);
    else
        return 0;
    return 1;
}

/* The option word argv[*i] (and its value, the next word when it has no
 * '='): into its field. 0, -1 for --help and its kind, or an exit code. */
static int take(parse *p, int argc, char **argv, int *i)
{
    const char *w = argv[*i], *eq = strchr(w, '=');
    int t, k;
    const lvd_opt *o = find(p, w, strcspn(w, "="), &t, &k);
    if (!o)
        return answered(p->tool, w) ? -1 : lvd_usage_error(p->tool->name, "unknown option '%s'", w);
    if (!o->arg && eq)
        return lvd_usage_error(p->tool->name, "'%.*s' takes no value", (int)(eq - w), w);
    const char *value = eq ? eq + 1 : "";
    if (o->arg && !eq) {
        if (*i + 1 >= argc)
            return word_error(p, w, "needs a value");
        value = argv[++*i];
    }
    lvd_err err = {{0}};
    if (set_value(o, p->opts, value, &err))
        return word_error(p, w, err.msg);
    p->given[t][k] = w;
    return 0;
}

/* The entries' defaults, into their fields (and a table too long for the
 * parse's bookkeeping is a bug, stopped here). */
static int set_defaults(parse *p)
{
    for (int t = 0; t < 2; t++)
        for (const lvd_opt *o = p->tables[t]; o && o->spell; o++) {
            if (o - p->tables[t] >= MAX_ENTRIES) {
                fprintf(stderr, "%s: more than %d options in one table\n", p->tool->name, MAX_ENTRIES);
                abort();
            }
            lvd_err err = {{0}};
            if (o->def && set_value(o, p->opts, o->def, &err))
                return lvd_usage_error(p->tool->name, "the default of %s %s", o->spell, err.msg);
        }
    return 0;
}

/* The index of the first operand of argv (skipping options and their values,
 * of every command's table), or argc. */
static int first_operand(const lvd_opt_tool *tool, int argc, char **argv)
{
    parse any = {.tool = tool, .tables = {tool->opts, NULL}};
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "--"))
            return i + 1;
        if (w[0] != '-' || !w[1])
            return i;
        int takes = 0, t, k;
        for (const lvd_opt_cmd *c = tool->cmds; c->name && !takes; c++) {
            any.tables[1] = c->opts;
            const lvd_opt *o = find(&any, w, strlen(w), &t, &k);
            takes = o && o->arg;
        }
        i += takes;
    }
    return argc;
}

/* The command argv[at] names, or NULL. */
static const lvd_opt_cmd *find_command(const lvd_opt_tool *tool, int argc, char **argv, int at)
{
    for (const lvd_opt_cmd *c = tool->cmds; at < argc && c->name; c++)
        if (!strcmp(c->name, argv[at]))
            return c;
    return NULL;
}

/* "missing COMMAND (info, engines, ...)", or "unknown command 'x' (...)". */
static int command_error(const lvd_opt_tool *tool, const char *word)
{
    lvd_sb names = {0};
    for (const lvd_opt_cmd *c = tool->cmds; c->name; c++)
        lvd_sb_addf(&names, "%s%s", c == tool->cmds ? "" : ", ", c->name);
    if (word)
        lvd_usage_error(tool->name, "unknown command '%s' (%s)", word, lvd_sb_str(&names));
    else
        lvd_usage_error(tool->name, "missing COMMAND (%s)", lvd_sb_str(&names));
    lvd_sb_free(&names);
    return LVD_EXIT_USAGE;
}

/* The form the given options choose (the one whose `by` was given) into
 * r->form. 0 or LVD_EXIT_USAGE (two forms' options given). */
static int choose_form(const parse *p, lvd_opt_result *r)
{
    const lvd_opt_form *forms = p->tool->forms;
    for (int f = 1, t, k; forms && forms[f].by; f++) {
        if (!find(p, forms[f].by, strlen(forms[f].by), &t, &k) || !p->given[t][k])
            continue;
        if (r->form) {
            char what[128];
            snprintf(what, sizeof what, "does not go with %s", forms[r->form].by);
            return word_error(p, p->given[t][k], what);
        }
        r->form = f;
    }
    return 0;
}

/* The first form o belongs to (the lowest bit of its form), 0 for every form. */
static int first_form(const lvd_opt *o)
{
    return o->form ? __builtin_ctz(o->form) : 0;
}

/* Every given option of p belongs to form f, and every required one of f
 * is given. 0 or LVD_EXIT_USAGE. */
static int check_form(const parse *p, int f)
{
    const lvd_opt_form *forms = p->tool->forms;
    for (int t = 0; t < 2; t++)
        for (const lvd_opt *o = p->tables[t]; o && o->spell; o++) {
            const char *w = p->given[t][o - p->tables[t]], *name = strstr(o->spell, "--");
            char what[128];
            if (w && o->form && !(o->form & LVD_FORM(f))) {
                snprintf(what, sizeof what, f ? "does not go with %s" : "needs %s", forms[f ? f : first_form(o)].by);
                return word_error(p, w, what);
            }
            if (!w && (o->req & LVD_FORM(f)))
                return lvd_usage_error(p->tool->name, "%.*s%s%s is required%s%s", (int)strcspn(name, ","), name,
                                       o->arg ? " " : "", o->arg ? o->arg : "", f ? " with " : "",
                                       f ? forms[f].by : "");
        }
    return 0;
}

/* The options of the tool's table and its command's; the operands moved to
 * argv[1...] (without the command); defaults first. */
static int parse_words(parse *p, int argc, char **argv, int at, lvd_opt_result *r)
{
    int rc = set_defaults(p), k = 1, dashdash = 0;
    for (int i = 1; rc == 0 && i < argc; i++) {
        char *w = argv[i];
        if (i == at)
            continue;
        if (!dashdash && !strcmp(w, "--"))
            dashdash = 1;
        else if (dashdash || w[0] != '-' || !w[1])
            argv[k++] = w;
        else
            rc = take(p, argc, argv, &i);
    }
    r->n_operands = k - 1;
    return rc;
}

int lvd_opt_parse(const lvd_opt_tool *tool, int argc, char **argv, void *opts, lvd_opt_result *r)
{
    parse p;
    memset(&p, 0, sizeof p);
    memset(r, 0, sizeof *r);
    p.tool = tool;
    p.opts = opts;
    p.tables[0] = tool->opts;
    int at = -1;
    if (tool->cmds) {
        at = first_operand(tool, argc, argv);
        r->cmd = find_command(tool, argc, argv, at);
        p.tables[1] = r->cmd ? r->cmd->opts : NULL;
    }
    int rc = parse_words(&p, argc, argv, r->cmd ? at : -1, r);
    if (rc == 0 && tool->cmds && !r->cmd)
        rc = command_error(tool, at < argc ? argv[1] : NULL);
    if (rc == 0)
        rc = choose_form(&p, r);
    if (rc == 0)
        rc = check_form(&p, r->form);
    const char *operands = r->cmd ? r->cmd->operands : tool->forms ? tool->forms[r->form].operands : NULL;
    if (rc == 0 && !operands && r->n_operands)
        rc = lvd_usage_error(tool->name, "unexpected argument '%s'", argv[1]);
    return rc;
}

/* Frees the fields table's entries allocated in opts (and zeroes them: two
 * commands' entries may share a field). */
static void free_table(const lvd_opt *table, void *opts)
{
    for (const lvd_opt *o = table; o && o->spell; o++) {
        void *field = (char *)opts + o->off;
        if (o->kind == LVD_OPT_STRS) {
            free(((lvd_opt_strs *)field)->v);
            memset(field, 0, sizeof(lvd_opt_strs));
        } else if (o->kind == LVD_OPT_INTS) {
            free(((lvd_opt_ints *)field)->v);
            memset(field, 0, sizeof(lvd_opt_ints));
        } else if (o->kind == LVD_OPT_LIST) {
            lvd_strv_free(((lvd_opt_list *)field)->v);
            memset(field, 0, sizeof(lvd_opt_list));
        }
    }
}

void lvd_opt_free(const lvd_opt_tool *tool, void *opts)
{
    free_table(tool->opts, opts);
    for (const lvd_opt_cmd *c = tool->cmds; c && c->name; c++)
        free_table(c->opts, opts);
}
