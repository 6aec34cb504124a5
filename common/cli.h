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

#endif
