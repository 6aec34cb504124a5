/* proc.h: runs a child process from an argv (never through a shell), captures
 * its stdout and stderr, enforces a timeout and, on timeout, kills the child's
 * whole process group. Not for long-lived services. */
#ifndef LVD_PROC_H
#define LVD_PROC_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

typedef struct proc_spec {
    const char *const *argv;  /* argv[0] is the path executed; no PATH search */
    const char *const *env;   /* extra "K=V" entries over the inherited environment; NULL = none */
    int timeout_ms;           /* required, > 0 */
    size_t max_capture;       /* bytes kept per stream (the head); 0 = 4 MiB */
    const char *cwd;          /* NULL = inherit */
    void (*on_err)(const char *buf, size_t n, void *ctx); /* each stderr chunk as it arrives
                                 (energy/watch.h timestamps llama-bench's --progress); NULL = none */
    void *on_err_ctx;
} proc_spec;

typedef struct proc_result {
    int spawned;              /* 0: could not start; spawn_errno says why */
    int spawn_errno;
    int exited;               /* exited normally with exit_code */
    int exit_code;
    int signaled;             /* killed by signo (including by our timeout) */
    int signo;
    int timed_out;            /* we killed it after timeout_ms */
    int out_truncated, err_truncated;
    lvd_sb out;
    lvd_sb err;
    int64_t wall_ms;
} proc_result;

/* Runs spec to completion (or to its timeout). Returns 0 when the outcome is
 * described in res (whatever it was), -1 only on an internal failure. */
int proc_run(const proc_spec *spec, proc_result *res, lvd_err *err);
void proc_result_free(proc_result *res);
/* "exit 0", "exit 1", "killed by signal 11 (Segmentation fault)",
 * "timed out after 5000 ms", "cannot execute: No such file or directory". */
const char *proc_describe(const proc_result *res, char *buf, size_t len);
/* 1 when the child ran and exited with status 0. */
int proc_ok(const proc_result *res);
/* The last max_lines lines of s (for stderr tails); malloc'd. */
char *proc_tail(const char *s, int max_lines);

#endif
