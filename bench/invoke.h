/* invoke.h: one llama-bench invocation of one arm of a plan, as its own
 * `llama-bench ... -o jsonl` process (through proc_run: argv, timeout,
 * process group killed), and what came of it. The tests a session asks for
 * are parsed here too.
 *
 * One invocation:
 *   BIN -m MODEL -p P,.. -n N,.. -r REPS -o jsonl [-dev SEL] [-ngl N] [-fa 0|1]
 *       [-ub U] [-ctk T] [-ctv T] [-ncmoe N] [-t T]      (the arm's env added)
 *   -p 0 / -n 0 when no pp / tg test is asked. Outcomes (lvd_run.status):
 *   ok           every asked test came back with valid samples;
 *   failed       could not execute, timed out, killed by a signal, non-zero
 *                exit, unparsable (garbage, truncated) output, a missing test,
 *                or a sample that is not a finite positive throughput;
 *   gpu_ignored  the arm asked for a GPU (-dev / -ngl > 0) and llama-bench
 *                reported backends "CPU": the build ignored the GPU flags (the
 *                seed's silent failure). Never scored as a GPU arm.
 *   Each result's leading warm-up samples (stats_warmup, per invocation) are
 *   flagged in lvd_result.warmup, kept in the store, never scored.
 *
 * Not for the session loop over a plan (bench/runner.h) nor for parsing
 * llama-bench's output (bench/benchout.h). */
#ifndef LVD_BENCH_INVOKE_H
#define LVD_BENCH_INVOKE_H

#include "bench/plan.h"
#include "common/types.h"
#include "common/util.h"

#include <stddef.h>

#define BENCH_STDERR_TAIL_LINES 20
#define BENCH_MAX_TESTS 16

/* One llama-bench test: pp (n_gen 0) or tg (n_prompt 0). */
typedef struct bench_test {
    char name[48];                 /* "pp512", "tg128" as llama-bench names them */
    int n_prompt, n_gen;
} bench_test;

/* Parses "pp512,tg128" (ppN and tgN items, N > 0, no duplicates, at most
 * BENCH_MAX_TESTS) into tests (malloc'd). 0, or -1 with err. */
int bench_tests_parse(const char *s, bench_test **tests, size_t *n, lvd_err *err);

/* The tests of llama-bench's -p and -n lists ("512,1024"; NULL: llama-bench's
 * defaults 512 and 128; 0: none of that kind) as bench_tests_parse makes
 * them: ppP for each P, then tgN for each N. 0, or -1 with err. */
int bench_tests_from_counts(const char *n_prompt, const char *n_gen, bench_test **tests, size_t *n,
                            lvd_err *err);

/* What every invocation of a session shares. */
typedef struct bench_invoke {
    const char *model;             /* passed to -m as given */
    const bench_test *tests;
    size_t n_tests;
    int reps;                      /* -r */
    int timeout_ms;                /* per invocation */
} bench_invoke;

/* The argv of one invocation of arm (NULL-terminated; free with lvd_strv_free). */
char **bench_arm_argv(const bench_arm *arm, const bench_invoke *inv);

/* The result of run for test ("tg128"), or NULL when it has none. */
const lvd_result *bench_run_result(const lvd_run *run, const char *test);

/* Runs arm once and fills run (zeroed first; free with lvd_run_free):
 * binary, build, params, arm_key, engine_id, status, reason, exit_code,
 * stderr_tail, started_at, wall_ms, build_commit/number and the results
 * (with warm-up flags), source "bench". Identity fields the session owns
 * (artifact, host, session) are left empty. Returns 0 whatever the engine
 * did (status says), -1 only when the process runner itself failed. */
int bench_run_arm(const bench_arm *arm, const bench_invoke *inv, lvd_run *run, lvd_err *err);

#endif
