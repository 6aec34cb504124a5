/* cli.h: what every tool's main shares: exit codes, error lines, colour and
 * TTY-only progress, the --store option, JSON printing. Not for parsing a
 * particular tool's options (each tool fills its own options struct). */
#ifndef LVD_CLI_H
#define LVD_CLI_H

#include <stdint.h>
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
    LVD_EXIT_LOCKED = 8,   /* another nightly holds the job lock, or another process the device lock */
};

/* "lvd-TOOL: error: MESSAGE" on stderr (red on a colour terminal). */
void lvd_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lvd_warn(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A usage error: the error line and the --help hint; returns LVD_EXIT_USAGE. */
int lvd_usage_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* --wait DUR of the tools that take the host's device lock: 0 to 7 days
 * (lvd_parse_duration) into *seconds; 0, or lvd_usage_error's exit code. */
int lvd_parse_wait(const char *tool, const char *arg, int64_t *seconds);

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

/* --store, --json, --host, --help and --version, as lvd_tool_parse fills them. */
typedef struct lvd_tool_opts {
    const char *store;  /* --store PATH; NULL: $LVD_STORE, else the XDG default */
    int json;           /* --json */
    const char *host;   /* --host NAME (tools that take it); NULL: this machine */
} lvd_tool_opts;

/* Their getopt_long entries, to end a tool's table (before {NULL, 0, NULL, 0}). */
#define LVD_TOOL_LONGOPTS                                                                        \
    {"json", no_argument, NULL, 'j'}, {"store", required_argument, NULL, 's'},                   \
        {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, 'V'}
/* The entry of --host NAME (whose measurements), for the tools that take it. */
#define LVD_TOOL_HOST_LONGOPT {"host", required_argument, NULL, 'H'}

/* A tool's own option, called by lvd_tool_parse with its getopt value c and
 * its value arg (NULL when it takes none): 0, or an exit code after a usage
 * error (lvd_usage_error). */
typedef int (*lvd_option_fn)(void *opts, int c, const char *arg);

/* Parses the options of argv with getopt_long (shorts starts with ':', e.g.
 * ":hm:"): --store, --json and --host (not empty) fill t, -h/--help prints
 * usage(stdout) and returns -1 (the tool exits 0), --version prints
 * "TOOL (llama-verdict) VERSION" and returns -1, every other option goes
 * to fn(opts, c, optarg). Options and operands may mix; "--" ends the
 * options. llama.cpp's spellings of the tool's options are taken as well,
 * from one table in cli.c (README "llama.cpp's flags"): a tool declaring
 * "model" takes -m, one declaring "ngl" (or "n-gpu-layers") takes -ngl,
 * --ngl and --n-gpu-layers, and so on for -fa, -ub, -ctk, -ctv, -ncmoe, -dev,
 * -t, -c, -d, -r, -p and -n; the single-dash word takes its value as the next
 * word (or after '=': -ngl=99). An unknown option or a missing value is a
 * usage error naming the argv word, in one line ("unknown option '-zq'").
 * 0 with argv's operands moved last and optind at the first, -1, or an exit
 * code. */
int lvd_tool_parse(const char *tool, int argc, char **argv, const char *shorts,
                   const struct option *longopts, void (*usage)(FILE *), lvd_tool_opts *t,
                   lvd_option_fn fn, void *opts);

/* After the options: LVD_EXIT_USAGE ("unexpected argument 'X'") when argv
 * has operands from optind on, else 0. */
int lvd_tool_no_operands(const char *tool, int argc, char **argv);

/* Prints err as tool's error line ("TOOL: error: MESSAGE") and returns code. */
int lvd_tool_fail(const char *tool, const lvd_err *err, int code);

#endif
