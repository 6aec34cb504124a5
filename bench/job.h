/* job.h: `lvd bench` as one call: what its command line asks (bench_job, the
 * fields the tool's option table fills) and the session it runs: the device
 * lock, the engines and the model, the tests at the serving depth, the plan
 * (placement with the store's margin corrections, llama.cpp's fit as a rival
 * arm), lvd check's run first with --check, the energy baseline, the
 * adaptive session, the host's facts, the report and the exit status. Not
 * for any step's rules (plan.h, runner.h, report.h, depth.h). */
#ifndef LVD_BENCH_JOB_H
#define LVD_BENCH_JOB_H

#include "common/opt.h"
#include "stats/rank.h"

#include <stdint.h>

typedef struct bench_job {
    const char *tool;       /* the name error lines start with */
    const char *store;      /* --store; NULL: the default */
    int json;               /* print JSON (with --check's under "check") */
    const char *model;
    const char *engines;    /* names or ids, comma-separated; NULL: all */
    const char *tests;      /* --tests ppN,tgN; NULL: -p and -n */
    const char *n_prompt, *n_gen; /* -p, -n: llama-bench's lists */
    lvd_opt_ints ngl, fa, ub, ncmoe, depth;
    lvd_opt_ints fmoe, rtr; /* ik_llama.cpp's -fmoe, -rtr */
    lvd_opt_list ctk, ctv, sm;
    const char *ts;         /* -ts "3/1" or "3,1" */
    int kv_mixed;           /* also mixed K/V cache types */
    int64_t ctx;            /* the serving context; -1 = lvd select's default */
    lvd_opt_strs env;       /* environment variants */
    int64_t threads;        /* 0: not passed */
    int64_t reps;           /* BENCH_REPS_DEFAULT: chosen from the measured costs */
    int64_t budget_s;
    int64_t max_samples;
    int64_t min_samples;    /* the first look's kept samples; 0 = the rule's */
    int64_t timeout_s;      /* per invocation */
    const char *session;    /* NULL: bench-HOST-EPOCH-... */
    int resume;             /* the session's runs already recorded count */
    int64_t wait_s;         /* for the device lock */
    stats_objective objective;
    int check;              /* lvd check's run first */
    int64_t energy_idle_ms; /* the idle baseline's length; -1 = no energy */
} bench_job;

/* Runs the bench j asks for, printing as it goes and the report at the end;
 * the exit status (LVD_EXIT_*), each failure as j->tool's error line. */
int bench_job_run(const bench_job *j);

/* --energy-idle: "off" (-1), "NNNms", or a duration of 1 s to 10 min, into
 * an int64_t of milliseconds (a common/opt.h entry's parser). */
int bench_job_energy_idle(const lvd_opt *o, void *field, const char *arg, lvd_err *err);

#endif
