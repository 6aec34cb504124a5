/* cli.c: error lines, colour, TTY progress, JSON output and the shared
 * options for the tools (opening their store: store/store_tool.c). */
#include "common/cli.h"

#include "common/opt_vocab.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int lvd_color_enabled(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    if (nc)
        return 0;
    const char *term = getenv("TERM");
    if (!term || !strcmp(term, "dumb"))
        return 0;
    return isatty(fileno(f));
}

const char *lvd_ansi(FILE *f, const char *seq)
{
    return lvd_color_enabled(f) ? seq : "";
}

static void vline(const char *tool, const char *kind, const char *color, const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: %s%s:%s ", tool, lvd_ansi(stderr, color), kind, lvd_ansi(stderr, "\033[0m"));
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void lvd_error(const char *tool, const char *fmt, ...)
{
    lvd_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vline(tool, "error", "\033[1;31m", fmt, ap);
    va_end(ap);
}

void lvd_warn(const char *tool, const char *fmt, ...)
{
    lvd_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vline(tool, "warning", "\033[1;33m", fmt, ap);
    va_end(ap);
}

int lvd_usage_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(tool, "error", "\033[1;31m", fmt, ap);
    va_end(ap);
    fprintf(stderr, "Try '%s --help'.\n", tool);
    return 2;
}

int lvd_parse_wait(const char *tool, const char *arg, int64_t *seconds)
{
    if (lvd_parse_duration(arg, seconds) || *seconds < 0 || *seconds > 7 * 86400)
        return lvd_usage_error(tool, "--wait wants a duration like 90s or 10m, not '%s'", arg);
    return 0;
}

static int progress_shown;

int lvd_progress_enabled(void)
{
    if (getenv("LVD_NO_PROGRESS"))
        return 0;
    return isatty(STDERR_FILENO);
}

void lvd_progress(const char *fmt, ...)
{
    if (!lvd_progress_enabled())
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = 1;
}

void lvd_progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        progress_shown = 0;
    }
}

void lvd_json_emit(FILE *f, cJSON *value)
{
    char *s = cJSON_Print(value);
    if (s) {
        fputs(s, f);
        fputc('\n', f);
        free(s);
    }
    cJSON_Delete(value);
}

/* llama.cpp's spellings (README "llama.cpp's flags"): the single-dash word
 * and llama.cpp's long name (names[0]) of the options that lvd's tools spell
 * names[1...]. A tool that declares any of the names takes the word and every
 * name; one that declares none of them takes neither. */
typedef struct llama_alias {
    const char *word;
    const char *names[3];
} llama_alias;

static const llama_alias llama_aliases[] = {
    {"-m", {"model", NULL}},
    {"-ngl", {"n-gpu-layers", "ngl", NULL}},
    {"-fa", {"flash-attn", "fa", NULL}},
    {"-ub", {"ubatch-size", "ub", NULL}},
    {"-ctk", {"cache-type-k", "ctk", NULL}},
    {"-ctv", {"cache-type-v", "ctv", NULL}},
    {"-ncmoe", {"n-cpu-moe", "ncmoe", NULL}},
    {"-dev", {"device", NULL}},
    {"-sm", {"split-mode", "sm", NULL}},
    {"-ts", {"tensor-split", "ts", NULL}},
    {"-t", {"threads", NULL}},
    {"-c", {"ctx-size", "ctx", NULL}},
    {"-d", {"n-depth", "depth", NULL}},
    {"-r", {"repetitions", "reps", NULL}},
    {"-p", {"n-prompt", NULL}},
    {"-n", {"n-gen", NULL}},
};

static const struct option *find_long(const struct option *longopts, const char *name)
{
    for (const struct option *p = longopts; p->name; p++)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

/* The tool's own option that alias a means, or NULL. */
static const struct option *alias_target(const struct option *longopts, const llama_alias *a)
{
    const struct option *o = NULL;
    for (size_t k = 0; !o && a->names[k]; k++)
        o = find_long(longopts, a->names[k]);
    return o;
}

/* The tool's longopts and llama.cpp's long names of them (malloc'd). */
static struct option *with_llama_names(const struct option *longopts)
{
    size_t n = 0;
    while (longopts[n].name)
        n++;
    struct option *all = lvd_xcalloc(n + LVD_ARRAY_LEN(llama_aliases) + 1, sizeof *all);
    memcpy(all, longopts, n * sizeof *all);
    for (size_t i = 0; i < LVD_ARRAY_LEN(llama_aliases); i++) {
        const llama_alias *a = &llama_aliases[i];
        const struct option *o = alias_target(longopts, a);
        if (o && !find_long(longopts, a->names[0])) {
            all[n] = *o;
            all[n++].name = a->names[0];
        }
    }
    return all;
}

/* The option that argv word w spells in llama.cpp's single-dash form ("-ngl",
 * or "-ngl=99" with *value "99"), or NULL. */
static const struct option *llama_word(const struct option *longopts, const char *w, const char **value)
{
    for (size_t i = 0; i < LVD_ARRAY_LEN(llama_aliases); i++) {
        size_t n = strlen(llama_aliases[i].word);
        if (strncmp(w, llama_aliases[i].word, n) || (w[n] && w[n] != '='))
            continue;
        const struct option *o = alias_target(longopts, &llama_aliases[i]);
        if (o)
            *value = w[n] ? w + n + 1 : NULL;
        return o;
    }
    return NULL;
}

/* Forgets where an earlier parse stopped (inside "-zq", say). */
static void getopt_reset(void)
{
    static char arg0[] = "lvd", *argv[] = {arg0, NULL};
    optind = 0;
    (void)getopt(1, argv, "+");
}

/* The usage error for what getopt_long returned for argv word w ('?' or ':'). */
static int getopt_error(const char *tool, int c, const char *w)
{
    if (w[1] == '-') {
        const char *eq = strchr(w, '=');
        if (c == '?' && eq && optopt) /* a known option that takes no value */
            return lvd_usage_error(tool, "'%.*s' takes no value", (int)(eq - w), w);
        return c == ':' ? lvd_usage_error(tool, "%s needs a value", w)
                        : lvd_usage_error(tool, "unknown option '%s'", w);
    }
    if (w[1] == optopt) /* the word's first letter: the word */
        return c == ':' ? lvd_usage_error(tool, "%s needs a value", w)
                        : lvd_usage_error(tool, "unknown option '%s'", w);
    return c == ':' ? lvd_usage_error(tool, "'-%c' in '%s' needs a value", optopt, w)
                    : lvd_usage_error(tool, "unknown option '-%c' in '%s'", optopt, w);
}

/* One option, found by getopt_long or as a llama.cpp word: fills t, prints
 * --help (-1), or goes to fn. 0, -1 or an exit code. */
static int take_option(const char *tool, const struct option *o, int c, const char *arg,
                       void (*usage)(FILE *), lvd_tool_opts *t, lvd_option_fn fn, void *opts)
{
    if (o && o->flag) {
        *o->flag = o->val;
        return 0;
    }
    switch (c) {
    case 's': t->store = arg; return 0;
    case 'j': t->json = 1; return 0;
    case 'H':
        if (!*arg)
            return lvd_usage_error(tool, "--host wants a name");
        t->host = arg;
        lvd_hostname_set(arg); /* the engines known by name are that host's (store/store_engines.c) */
        return 0;
    case 'h': usage(stdout); return -1;
    case 'V': printf("%s (llama-verdict) %s\n", tool, LVD_VERSION); return -1;
    default: return fn(opts, c, arg);
    }
}

/* argv[1...] as the option words, then "--" (dashdash, when it was given),
 * then the operands, as getopt_long leaves them; optind at the first operand. */
static void put_operands_last(char **argv, char **words, size_t n_words, char *dashdash,
                              char **operands, size_t n_operands)
{
    size_t k = 1;
    for (size_t i = 0; i < n_words; i++)
        argv[k++] = words[i];
    if (dashdash)
        argv[k++] = dashdash;
    optind = (int)k;
    for (size_t i = 0; i < n_operands; i++)
        argv[k++] = operands[i];
}

int lvd_tool_parse(const char *tool, int argc, char **argv, const char *shorts,
                   const struct option *longopts, void (*usage)(FILE *), lvd_tool_opts *t,
                   lvd_option_fn fn, void *opts)
{
    struct option *all = with_llama_names(longopts);
    char *order = lvd_xasprintf("+%s", shorts); /* stop at operands: they are ours to move */
    char **words = lvd_xcalloc((size_t)argc + 1, sizeof *words);
    char **operands = lvd_xcalloc((size_t)argc + 1, sizeof *operands);
    size_t n_words = 0, n_operands = 0;
    char *dashdash = NULL;
    int i = 1, rc = 0;
    opterr = 0; /* one line per error, ours */
    getopt_reset();
    while (rc == 0 && i < argc) {
        char *w = argv[i];
        const char *value = NULL;
        const struct option *o;
        if (!strcmp(w, "--")) {
            dashdash = w;
            for (i++; i < argc; i++)
                operands[n_operands++] = argv[i];
        } else if ((o = llama_word(longopts, w, &value)) != NULL) {
            words[n_words++] = argv[i++];
            if (o->has_arg == no_argument && value) {
                rc = lvd_usage_error(tool, "'%.*s' takes no value", (int)(strchr(w, '=') - w), w);
            } else if (o->has_arg == required_argument && !value) {
                if (i == argc)
                    rc = lvd_usage_error(tool, "%s needs a value", w);
                else
                    value = words[n_words++] = argv[i++];
            }
            if (rc == 0)
                rc = take_option(tool, o, o->val, value, usage, t, fn, opts);
        } else if (w[0] != '-' || !w[1]) {
            operands[n_operands++] = argv[i++];
        } else {
            int idx = -1;
            optind = i;
            int c = getopt_long(argc, argv, order, all, &idx);
            for (; i < optind; i++) /* the word, and its value when separate */
                words[n_words++] = argv[i];
            if (c == '?' || c == ':')
                rc = getopt_error(tool, c, w);
            else if (c != -1)
                rc = take_option(tool, idx >= 0 ? &all[idx] : NULL, c, optarg, usage, t, fn, opts);
            else /* not an option after all */
                operands[n_operands++] = argv[i++];
        }
    }
    if (rc == 0)
        put_operands_last(argv, words, n_words, dashdash, operands, n_operands);
    free(operands);
    free(words);
    free(order);
    free(all);
    return rc;
}

int lvd_tool_no_operands(const char *tool, int argc, char **argv)
{
    if (optind < argc)
        return lvd_usage_error(tool, "unexpected argument '%s'", argv[optind]);
    return 0;
}

int lvd_opt_host(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    if (!*arg)
        return lvd_errf(err, "wants a name");
    *(const char **)field = arg;
    lvd_hostname_set(arg); /* the engines known by name are that host's (store/store_engines.c) */
    return 0;
}

int lvd_tool_fail(const char *tool, const lvd_err *err, int code)
{
    lvd_error(tool, "%s", err->msg);
    return code;
}
