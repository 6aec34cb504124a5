/* proc.h: runs a child process from an argv (never through a shell), captures
 * its stdout and stderr, enforces a timeout and, on timeout, kills the child's
 * whole process group (proc_run); or starts a long-lived one, a server, whose
 * group its caller stops (proc_start, proc_stop). Either dies with us. */
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

/* --- a long-lived child (a server) -------------------------------------- */

/* A child started by proc_start: in a process group of its own, led by the
 * same guard proc_run's children have (it kills the group when we die, by
 * SIGKILL included), stdin /dev/null, stdout and stderr written to a log
 * file. Its time limit is the caller's: proc_stop ends it. */
typedef struct proc_child {
    int pid;                  /* the child; 0 when not started */
    int pgid;                 /* its group (the guard's pid, else its own) */
    int guard, guard_w;       /* the guard and the pipe end that fires it; -1 when none */
    int reaped, status;       /* waitpid's status once it has exited */
} proc_child;

/* Starts spec's argv (spec->env, spec->cwd as proc_run; timeout_ms and
 * max_capture are not used) with stdout and stderr to log_path (created or
 * truncated; NULL: /dev/null). 0, or -1 with err (c->pid 0): it could not
 * be started (the errno in words). */
int proc_start(const proc_spec *spec, const char *log_path, proc_child *c, lvd_err *err);
/* 1 when the child has exited (it is reaped then: c->status), 0 while it runs. */
int proc_child_exited(proc_child *c);
/* Ends the child's whole group: SIGTERM, then SIGKILL after grace_ms if it
 * has not exited; reaps it and stops the guard. Nothing of the group is
 * left. Safe on a child not started or already stopped. */
void proc_stop(proc_child *c, int grace_ms);
/* What became of a stopped or exited child: "exit 1", "killed by signal 9
 * (Killed)". */
const char *proc_child_describe(const proc_child *c, char *buf, size_t len);

#endif
