/* nightly.h: the main job, as a cron line on a GPU box runs it: take the lock,
 * fetch the pinned and candidate builds, probe, check, bench, record verdicts,
 * decide the pin, write the evidence page. Each step is one lvd tool run as a
 * child process (argv, timeout, process group), so a failing step is recorded
 * and the job goes on with what it has. Not for measuring anything itself. */
#ifndef LVD_NIGHT_NIGHTLY_H
#define LVD_NIGHT_NIGHTLY_H

#include "common/util.h"
#include "nightly/config.h"

#include <stdio.h>

typedef struct night_step {
    char *name;        /* "fetch pinned bin-ubuntu-vulkan-x64", "bench tiny-llama-q4_0.gguf" */
    int exit_code;     /* the tool's exit status; -1 when it did not exit normally */
    char *outcome;     /* "ok", "offline", "partial", "failed: ..." */
    int64_t ms;
} night_step;

typedef struct night_report {
    night_step *steps;
    size_t n_steps;
    int offline;       /* the release API could not be reached */
    char *candidate;   /* the candidate build measured, or NULL */
    char *session;     /* the bench session id of this night (the interrupted night's when resumed) */
    int resumed;       /* 1: this night continues an interrupted night's session (resume.h) */
    char *note;        /* the last night was interrupted: what became of it; else NULL */
    int exit_code;     /* LVD_EXIT_OK, LVD_EXIT_PARTIAL or LVD_EXIT_FAIL */
} night_report;

typedef struct night_opts {
    const night_config *cfg;
    const char *store;     /* the store path every step gets */
    const char *fallback_from; /* the PostgreSQL store (as shown) that could not be opened, when
                                * store is cfg->fallback_store instead; NULL */
    const char *tools_dir; /* where lvd-* live */
    FILE *console;         /* one line per step; NULL = quiet */
} night_opts;

/* Runs the whole job and fills report. Returns 0 when the job ran (whatever
 * its steps did: see report->exit_code), -1 when it could not start (log file
 * unwritable). */
int night_run(const night_opts *o, night_report *report, lvd_err *err);
void night_report_free(night_report *r);

#endif
