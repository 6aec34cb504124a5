/* opt_help.c: a tool's --help and --list-options from its option table (see
 * opt.h): the usage lines of each form, the description, the options with
 * their help, defaults and environment, the commands, the exit statuses and
 * the examples, wrapped at 80 columns in the shape man/help2man-input reads
 * for the man page; and the words the bash completion offers. Not for parsing
 * (opt.c). */
#include "common/opt.h"

#include <string.h>

#define WIDTH 80 /* the text's columns */
#define COL 22   /* where an option's help starts */

/* --- wrapping ---------------------------------------------------------------- */

/* The width of a list marker that starts a line ("1. ", "- "), else 0. */
static int marker(const char *line)
{
    size_t n = strcspn(line, " \n");
    return line[n] == ' ' && ((n == 1 && *line == '-') || (n >= 2 && n <= 3 && line[n - 1] == '.')) ? (int)n + 1 : 0;
}

/* Prints text from column col (already reached), wrapped at WIDTH and going
 * on at column indent. "\n" in text starts a new line; the blanks that start
 * a line of it are kept (a list item, wrapped under its own words). */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    int fresh = 1, start = col, hang = indent; /* no word on the line yet; where its words start; go on */
    while (*text) {
        if (*text == '\n') {
            text++;
            int lead = (int)strspn(text, " ");
            fputc('\n', f);
            col = 0;
            start = indent + lead;
            hang = start + marker(text + lead);
            fresh = 1;
            text += lead;
            continue;
        }
        int n = (int)strcspn(text, " \n");
        if (!fresh && col + 1 + n > WIDTH) {
            fputc('\n', f);
            col = 0;
            start = hang;
            fresh = 1;
        }
        int gap = fresh ? (start > col ? start - col : 0) : 1;
        fprintf(f, "%*s%.*s", gap, "", n, text);
        col += gap + n;
        fresh = 0;
        text += n;
        text += strspn(text, " ");
    }
}

/* --- usage lines ------------------------------------------------------------- */

/* 1 when o belongs to form f. */
static int in_form(const lvd_opt *o, int f)
{
    return !o->form || (o->form & LVD_FORM(f));
}

/* The entry of the tool's table spelled w, or NULL. */
static const lvd_opt *entry(const lvd_opt_tool *t, const char *w)
{
    for (const lvd_opt *o = t->opts; w && o && o->spell; o++)
        if (lvd_opt_spelled(o, w))
            return o;
    return NULL;
}

/* Prints a usage item (" [-m M.gguf]") from column *col, on a new line at
 * indent when it does not fit. */
static void item(FILE *f, int *col, int indent, const char *text)
{
    int n = (int)strlen(text);
    if (*col + 1 + n > WIDTH) {
        fprintf(f, "\n%*s", indent - 1, "");
        *col = indent - 1;
    }
    fprintf(f, " %s", text);
    *col += 1 + n;
}

/* The item of o in form f: its first spelling and value, in brackets unless
 * it is required there, "..." after a repeatable one. */
static void option_item(FILE *f, int *col, int indent, const lvd_opt *o, int form, int bare)
{
    char buf[128];
    int opt = !bare && !(o->req & LVD_FORM(form));
    snprintf(buf, sizeof buf, "%s%.*s%s%s%s%s", opt ? "[" : "", (int)strcspn(o->spell, ","), o->spell,
             o->arg ? " " : "", o->arg ? o->arg : "", opt ? "]" : "", o->kind == LVD_OPT_STRS ? "..." : "");
    item(f, col, indent, buf);
}

/* "usage: lvd bench -m M.gguf [--engines LIST] ..." for form 0, and
 * "       lvd check --import ..." for each other form. */
static void usage_line(FILE *f, const lvd_opt_tool *t, int form)
{
    const char *name = t->name, *dash = strchr(name, '-');
    int col = fprintf(f, "%s%.*s%s%s", form ? "       " : "usage: ", dash ? (int)(dash - name) : (int)strlen(name),
                      name, dash ? " " : "", dash ? dash + 1 : "");
    int indent = col + 1;
    const lvd_opt *by = t->forms ? entry(t, t->forms[form].by) : NULL;
    if (by)
        option_item(f, &col, indent, by, form, 1);
    for (int req = 1; req >= 0; req--) /* the required ones first */
        for (const lvd_opt *o = t->opts; o && o->spell; o++)
            if (o != by && in_form(o, form) && ((o->req & LVD_FORM(form)) != 0) == req)
                option_item(f, &col, indent, o, form, 0);
    const char *operands = t->forms ? t->forms[form].operands : t->cmds ? "COMMAND [ARGS]" : NULL;
    if (operands)
        item(f, &col, indent, operands);
    fputc('\n', f);
}

/* --- options, commands --------------------------------------------------------- */

/* "  -m, --model M.gguf  the model (default X) (env: E)", its help wrapped at COL. */
static void option_line(FILE *f, const lvd_opt_tool *t, const lvd_opt *o, int indent)
{
    int col = fprintf(f, "%*s%s%s%s", indent, "", o->spell, o->arg ? " " : "", o->arg ? o->arg : "");
    if (col > COL - 2) {
        fputc('\n', f);
        col = 0;
    }
    fprintf(f, "%*s", COL - col, "");
    lvd_sb sb = {0};
    lvd_sb_adds(&sb, o->help ? o->help : "");
    if (o->def)
        lvd_sb_addf(&sb, " (default %s)", o->def);
    if (o->env)
        lvd_sb_addf(&sb, " (env: %s)", o->env);
    const char *by = o->form && !(o->form & LVD_FORM(0)) ? t->forms[__builtin_ctz(o->form)].by : NULL;
    if (by && o != entry(t, by)) /* an option of another form than the first */
        lvd_sb_addf(&sb, " (with %s)", by);
    wrap(f, lvd_sb_str(&sb), COL, COL);
    fputc('\n', f);
    lvd_sb_free(&sb);
}

static void commands(FILE *f, const lvd_opt_tool *t)
{
    int width = 0;
    for (const lvd_opt_cmd *c = t->cmds; c->name; c++) {
        int n = (int)strlen(c->name) + (c->operands ? 1 + (int)strlen(c->operands) : 0);
        width = n > width ? n : width;
    }
    int at = width + 4 < COL ? width + 4 : COL;
    fprintf(f, "\n%s:\n", t->cmds_title ? t->cmds_title : "commands");
    for (const lvd_opt_cmd *c = t->cmds; c->name; c++) {
        int col = fprintf(f, "  %s%s%s", c->name, c->operands ? " " : "", c->operands ? c->operands : "");
        if (col + 2 > at) {
            fputc('\n', f);
            col = 0;
        }
        fprintf(f, "%*s", at - col, "");
        wrap(f, c->help, at, at);
        fputc('\n', f);
        for (const lvd_opt *o = c->opts; o && o->spell; o++)
            option_line(f, t, o, 4);
    }
}

/* "example:" or "examples:", then each line indented. */
static void examples(FILE *f, const char *text)
{
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n' && p[1] && p[-1] != '\\';
    fprintf(f, "\nexample%s:\n", n ? "s" : "");
    while (*text) {
        size_t len = strcspn(text, "\n");
        fprintf(f, "  %.*s\n", (int)len, text);
        text += len + (text[len] == '\n');
    }
}

void lvd_opt_help(const lvd_opt_tool *t, FILE *f)
{
    for (int form = 0; form == 0 || (t->forms && t->forms[form].by); form++)
        usage_line(f, t, form);
    if (t->about) {
        fputc('\n', f);
        wrap(f, t->about, 0, 0);
        fputc('\n', f);
    }
    if (t->cmds)
        commands(f, t);
    fprintf(f, "\noptions:\n");
    for (const lvd_opt *o = t->opts; o && o->spell; o++)
        option_line(f, t, o, 2);
    static const lvd_opt builtin[] = {{.spell = "-h, --help", .help = "this text"},
                                      {.spell = "--version", .help = "the version"}};
    for (size_t i = 0; i < LVD_ARRAY_LEN(builtin); i++)
        option_line(f, t, &builtin[i], 2);
    if (t->more) {
        fputc('\n', f);
        wrap(f, t->more, 0, 0);
        fputc('\n', f);
    }
    if (t->exits) {
        fprintf(f, "\nexit: ");
        wrap(f, t->exits, 6, 0);
        fputc('\n', f);
    }
    if (t->examples)
        examples(f, t->examples);
}

/* --- completion ------------------------------------------------------------------- */

/* One line per spelling of each entry of table: "--model M.gguf". */
static void list_table(const lvd_opt *table, FILE *f)
{
    for (const lvd_opt *o = table; o && o->spell; o++)
        for (const char *s = o->spell; *s;) {
            size_t n = strcspn(s, ",");
            fprintf(f, "%.*s%s%s\n", (int)n, s, o->arg ? " " : "", o->arg ? o->arg : "");
            s += n;
            s += strspn(s, ", ");
        }
}

void lvd_opt_list_options(const lvd_opt_tool *t, FILE *f)
{
    list_table(t->opts, f);
    for (const lvd_opt_cmd *c = t->cmds; c && c->name; c++)
        list_table(c->opts, f);
    fputs("-h\n--help\n--version\n", f);
    for (const lvd_opt_cmd *c = t->cmds; c && c->name; c++)
        fprintf(f, "%s\n", c->name);
}
