/* opt.h: one table per tool of one shared type, from which the tool's command
 * line is parsed (lvd_opt_parse) and its --help, and through --help its man
 * page, and its bash completion (--list-options) are printed (opt_help.c).
 * An entry says every spelling of an option, its value's name and kind,
 * the range a number must be in, its default, its help text, the
 * environment variable its default comes from and where the value goes (an
 * offset into the tool's options struct). The entries several tools share,
 * llama.cpp's spellings and lvd's own, are written once in
 * common/opt_vocab.h. docs/options.md tells how to add an option. Not for
 * what an option means to a tool (the tool's library does that), nor for
 * printing anything but usage. */
#ifndef LVD_OPT_H
#define LVD_OPT_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A number macro as a string, for a default or a help text written with the
 * library's own constant: LVD_STRINGIFY(BENCH_TIMEOUT_S_DEFAULT) "s". */
#define LVD_STRINGIFY(x) LVD_STRINGIFY_(x)
#define LVD_STRINGIFY_(x) #x

/* What a value is, and so which type its field has. */
typedef enum lvd_opt_kind {
    LVD_OPT_FLAG,     /* no value; int field set to 1 */
    LVD_OPT_STR,      /* const char * field: the argv word itself */
    LVD_OPT_STRS,     /* lvd_opt_strs: every value, in order (repeatable) */
    LVD_OPT_INT,      /* int64_t field, a whole number in [lo, hi] */
    LVD_OPT_INTS,     /* lvd_opt_ints: comma lists of whole numbers in [lo, hi], appended */
    LVD_OPT_REAL,     /* double field, a number in [lo, hi] */
    LVD_OPT_DURATION, /* int64_t field, seconds: 90, 90s, 15m, 6h, 2d, in [lo, hi] */
    LVD_OPT_LIST,     /* lvd_opt_list: a comma list of words (a later one replaces it) */
    LVD_OPT_CALL,     /* whatever call makes of the value */
} lvd_opt_kind;

/* Flags of an entry. */
enum {
    LVD_OPT_NONEMPTY = 1, /* STR: the empty word is refused ("--host wants a name") */
    LVD_OPT_ONOFF = 2,    /* INTS: the items are switches, on/off/1/0 (1 or 0) */
};

typedef struct lvd_opt_strs {
    const char **v;
    size_t n;
} lvd_opt_strs;

typedef struct lvd_opt_ints {
    int *v;
    size_t n;
} lvd_opt_ints;

typedef struct lvd_opt_list {
    const char *arg; /* the value as given ("f16,q8_0") */
    char **v;        /* its words (NULL-terminated) */
    size_t n;
} lvd_opt_list;

struct lvd_opt;
/* An entry's own parser: the value arg into field (the entry's field in the
 * options struct). 0, -1 with err saying what the option wants ("wants a
 * duration like 3s, or off"; the message follows the argv word), or 1 to hand
 * the value to the entry's kind (a word of its own, then the kind's range). */
typedef int (*lvd_opt_fn)(const struct lvd_opt *o, void *field, const char *arg, lvd_err *err);

/* One option. A table ends with an entry whose spell is NULL. */
typedef struct lvd_opt {
    const char *spell; /* every spelling, as --help shows them: "-ngl, --n-gpu-layers, --ngl" */
    const char *arg;   /* the value's name in --help ("N,..."); NULL: a flag */
    lvd_opt_kind kind;
    size_t off;        /* offsetof the field in the tool's options struct */
    double lo, hi;     /* INT, INTS, REAL, DURATION: the range, both ends taken */
    const char *unit;  /* INT, INTS: what the numbers count ("tokens"), for the error */
    const char *def;   /* the default, as a user would write it: set before argv, shown */
    const char *help;  /* what it does; wrapped; "\n" starts a new line */
    const char *env;   /* the environment variable the default comes from (read by the library) */
    lvd_opt_fn call;   /* CALL's parser, or a first look at any kind's value */
    unsigned form;     /* the forms it belongs to (LVD_FORM bits); 0: every form */
    unsigned req;      /* the forms in which it must be given */
    unsigned flags;
} lvd_opt;

/* A form of the command line (lvd check --import ..., lvd fetch --register DIR):
 * chosen by giving the option `by`; the first form, the default, has none. */
typedef struct lvd_opt_form {
    const char *by;       /* a spelling of the option that chooses it; NULL for the first */
    const char *operands; /* what it takes after the options ("[DIR...]"); NULL: none */
} lvd_opt_form;
#define LVD_FORM(i) (1u << (i))

/* A command of a tool that has them (lvd store info, lvd store import ...),
 * with its own table. An array of them ends with a NULL name. */
typedef struct lvd_opt_cmd {
    const char *name;
    const char *operands; /* "FILE..."; NULL: none */
    const char *help;
    const lvd_opt *opts;  /* NULL: none of its own */
    const void *data;     /* the tool's, for running it */
} lvd_opt_cmd;

/* A tool's command line and its --help. */
typedef struct lvd_opt_tool {
    const char *name;         /* "lvd-bench": error lines, --version; "lvd bench" in usage */
    const char *about;        /* what it does, after the usage lines */
    const lvd_opt *opts;      /* the table; NULL: none */
    const lvd_opt_form *forms; /* ended by a {NULL, NULL} after the first; NULL: one form, no operands */
    const lvd_opt_cmd *cmds;  /* the commands; NULL: none */
    const char *cmds_title;   /* their heading ("commands") */
    const char *more;         /* paragraphs after the options ("environment: ...") */
    const char *exits;        /* the exit statuses, "0 ok, 1 ..." */
    const char *examples;     /* one command a line (a line ending in '\' goes on) */
} lvd_opt_tool;

/* What lvd_opt_parse found besides the options. */
typedef struct lvd_opt_result {
    int n_operands;          /* argv[1 .. n_operands] are the operands, in their order */
    int form;                /* the form chosen (an index of tool->forms) */
    const lvd_opt_cmd *cmd;  /* the command, when the tool has them (not among the operands) */
} lvd_opt_result;

/* Parses argv into opts (the tool's options struct, its defaults set; the
 * entries' def values are set first). Options and operands mix; "--" ends
 * the options; a value is the next word or follows '=' (--ctx=4096,
 * -ngl=99); a single-dash spelling is a whole word (-ngl, never -n gl).
 * Every tool also takes -h/--help (prints the help on stdout), --version
 * ("TOOL (llama-verdict) VERSION") and --list-options (completion's words),
 * each of which ends the parse with -1 (the tool exits 0). An unknown option,
 * a missing value, a value out of range, an option of another form, a
 * required option missing and an operand where none goes are a usage error
 * naming the argv word, in one line: LVD_EXIT_USAGE. 0 with r filled (the
 * operands moved to argv[1...]). Allocates only for repeatable and list
 * values (lvd_opt_free). */
int lvd_opt_parse(const lvd_opt_tool *tool, int argc, char **argv, void *opts, lvd_opt_result *r);

/* Frees what the parse allocated in opts (STRS, INTS and LIST fields). */
void lvd_opt_free(const lvd_opt_tool *tool, void *opts);

/* The whole number of arg in o's range into *v, for an entry's own parser
 * that takes a word of its own first. 0, or -1 with err ("wants 0 to 9"). */
int lvd_opt_int(const lvd_opt *o, const char *arg, int64_t *v, lvd_err *err);

/* --help: usage lines, about, options, commands, more, exit, examples. */
void lvd_opt_help(const lvd_opt_tool *tool, FILE *f);

/* --list-options: one line per spelling ("--model M.gguf", "--format
 * auto|json|jsonl|sql", "--json"), then one per command or tool name, for
 * the bash completion (completion/lvd.bash.in). */
void lvd_opt_list_options(const lvd_opt_tool *tool, FILE *f);

/* The argv word w spells option o when it is one of o's spellings, alone or
 * before '=': 1 or 0. */
int lvd_opt_spelled(const lvd_opt *o, const char *w);

#endif
