/* cli.h: what every tool's main shares: exit codes, error lines, colour and
 * TTY-only progress, the options every tool holds, JSON printing. Not for
 * parsing a command line (common/opt.h). */
#ifndef LVD_CLI_H
#define LVD_CLI_H

#include <stdint.h>
#include <stdio.h>

struct cJSON;
struct lvd_sb;

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

/* How a user registers a local llama.cpp build (its build is read from its
 * --version), for every line that finds no engine. */
#define LVD_REGISTER_HINT "lvd fetch --register DIR"

/* "lvd-TOOL: error: MESSAGE" on stderr (red on a colour terminal). */
void lvd_error(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lvd_warn(const char *tool, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* From now on lvd_error and lvd_warn append their lines (colored as for
 * stderr) to sink instead of writing them; NULL writes them again. For a
 * tool that replays its diagnostics later (lvd select's answer cache). */
void lvd_diag_capture(struct lvd_sb *sink);
/* A usage error: the error line and the --help hint; returns LVD_EXIT_USAGE. */
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

/* --store, --json and --host, the options every tool's struct holds first
 * (their entries: common/opt_vocab.h). */
typedef struct lvd_tool_opts {
    const char *store;  /* --store PATH; NULL: $LVD_STORE, else the XDG default */
    int json;           /* --json */
    const char *host;   /* --host NAME (tools that take it); NULL: this machine */
} lvd_tool_opts;

/* Prints err as tool's error line ("TOOL: error: MESSAGE") and returns code. */
int lvd_tool_fail(const char *tool, const lvd_err *err, int code);

#endif
