/* cli.h: what every tool's main shares: exit codes, error lines, colour and
 * TTY-only progress, the --store option, JSON printing. Not for parsing a
 * particular tool's options (each tool fills its own options struct). */
#ifndef LVD_CLI_H
#define LVD_CLI_H

#include <stdio.h>

struct cJSON;

/* Stable exit codes, documented in the README. */
enum lvd_exit {
    LVD_EXIT_OK = 0,       /* done */
    LVD_EXIT_FAIL = 1,     /* the operation failed (engine, I/O, nothing to decide) */
    LVD_EXIT_USAGE = 2,    /* bad command line */
    LVD_EXIT_INPUT = 3,    /* bad input file (model, import file, pin file, profile) */
    LVD_EXIT_STORE = 4,    /* store cannot be opened, is newer than this binary, or failed */
    LVD_EXIT_PARTIAL = 5,  /* finished, but some engines/arms/models failed (recorded) */
    LVD_EXIT_VERIFY = 6,   /* a digest did not verify, or a build could not be verified */
    LVD_EXIT_NETWORK = 7,  /* network or HTTP failure */
    LVD_EXIT_LOCKED = 8,   /* another nightly holds the lock */
};

/* "lvd-TOOL: error: MESSAGE" on stderr (red on a colour terminal). */
void lvd_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lvd_warn(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints a usage error and the --help hint; returns LVD_EXIT_USAGE. */
int lvd_usage_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Colour only on a terminal, never when NO_COLOR is set (any value) or TERM=dumb. */
int lvd_color_enabled(FILE *f);
/* ANSI sequence when colour is enabled for f, else "". */
const char *lvd_ansi(FILE *f, const char *seq);

/* Progress lines on stderr, only when stderr is a terminal (and LVD_NO_PROGRESS unset). */
int lvd_progress_enabled(void);
void lvd_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void lvd_progress_done(void);

/* Prints a JSON value (pretty, newline-terminated) to f and frees it. */
void lvd_json_emit(FILE *f, struct cJSON *value);

/* --- the options every tool takes (opening its store: store/store_tool.h) -- */

#include "common/util.h"

struct option;

/* --store, --json, --host and --help, as lvd_tool_parse fills them. */
typedef struct lvd_tool_opts {
    const char *store;  /* --store PATH; NULL: $LVD_STORE, else the XDG default */
    int json;           /* --json */
    const char *host;   /* --host NAME (tools that take it); NULL: this machine */
} lvd_tool_opts;

/* Their getopt_long entries, to end a tool's table (before {NULL, 0, NULL, 0}). */
#define LVD_TOOL_LONGOPTS                                                                        \
    {"json", no_argument, NULL, 'j'}, {"store", required_argument, NULL, 's'},                   \
        {"help", no_argument, NULL, 'h'}
/* The entry of --host NAME (whose measurements), for the tools that take it. */
#define LVD_TOOL_HOST_LONGOPT {"host", required_argument, NULL, 'H'}

/* A tool's own option, called by lvd_tool_parse with its getopt value c and
 * its value arg (NULL when it takes none): 0, or an exit code after a usage
 * error (lvd_usage_error). */
typedef int (*lvd_option_fn)(void *opts, int c, const char *arg);

/* Parses the options of argv with getopt_long (shorts starts with ':', e.g.
 * ":hm:"): --store, --json and --host (not empty) fill t, -h/--help prints
 * usage(stdout) and returns -1 (the tool exits 0), every other option goes
 * to fn(opts, c, optarg); an unknown option or a missing value is a usage
 * error naming it, in one line (LVD_EXIT_USAGE). 0 with optind at the first
 * operand, -1, or an exit code. */
int lvd_tool_parse(const char *tool, int argc, char **argv, const char *shorts,
                   const struct option *longopts, void (*usage)(FILE *), lvd_tool_opts *t,
                   lvd_option_fn fn, void *opts);

/* After the options: LVD_EXIT_USAGE ("unexpected argument 'X'") when argv
 * has operands from optind on, else 0. */
int lvd_tool_no_operands(const char *tool, int argc, char **argv);

/* Prints err as tool's error line ("TOOL: error: MESSAGE") and returns code. */
int lvd_tool_fail(const char *tool, const lvd_err *err, int code);

#endif
