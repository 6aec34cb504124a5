/* invoke.h: one llama-bench invocation of one arm of a plan, as its own
 * `llama-bench ... -o jsonl` process (through proc_run: argv, timeout,
 * process group killed), and what came of it. The tests a session asks for
 * are parsed here too.
 *
 * One invocation (engine/argv.h builds it):
 *   BIN -m MODEL -p P,.. -n N,.. [-d D,..] -r REPS -o jsonl -v [-dev SEL] [-ngl N]
 *       [-fa 0|1] [-ub U] [-ctk T] [-ctv T] [-ncmoe N] [-fitt MiB [-fitc N]] [-t T]
 *       (the arm's env added)
 *   -p 0 / -n 0 when no pp / tg test is asked; each list holds each value once
 *   (llama-bench crosses -p and -n with -d); -d only when a test has a depth.
 *   A flag the build's --help does not list (recorded with its probe) is left
 *   out, and every run of the invocation records the note saying so
 *   (lvd_run.left_out); a build lacking a flag the invocation needs (-d for
 *   a test at a depth) runs nothing: its runs fail with that reason.
 *   Outcomes (lvd_run.status):
 *   ok           every asked test came back with valid samples (a build that
 *                prints only each test's mean, at -r 1: that mean, the one
 *                repetition's throughput, is its sample);
 *   failed       could not execute, timed out, killed by a signal, non-zero
 *                exit, unparsable (garbage, truncated) output, a missing test,
 *                or a sample that is not a finite positive throughput; means
 *                only, of several repetitions (bench_group_runs.means_only:
 *                the session measures that engine again one repetition per
 *                process, bench/runner.h);
 *   gpu_ignored  the arm asked for a GPU (-dev / -ngl > 0) and llama-bench
 *                reported backends "CPU": the build ignored the GPU flags (the
 *                seed's silent failure). Never scored as a GPU arm.
 *   Each result's leading warm-up samples (stats_warmup, per invocation) are
 *   flagged in lvd_result.warmup, kept in the store, never scored.
 *
 * Arms sharing a process (bench/group.h): one invocation with the group's
 *   comma lists (`-fa 1,0,0,1`), its rows split back per arm and slot into one
 *   run per arm and slot (each with its own warm-up flags and status), each
 *   run's wall_ms its own samples' time plus an equal share of the rest; a
 *   process that failed gives every arm one failed run with its reason.
 *   --no-warmup is passed when bench_invoke.no_warmup is set (bench/runner.h
 *   says when).
 *
 * Not for the session loop over a plan (bench/runner.h) nor for parsing
 * llama-bench's output (benchio/benchout.h). */
#ifndef LVD_BENCH_INVOKE_H
#define LVD_BENCH_INVOKE_H

#include "bench/group.h"
#include "bench/plan.h"
#include "common/types.h"
#include "common/util.h"
#include "engine/argv.h"

#include <stddef.h>

#define BENCH_STDERR_TAIL_LINES 20
#define BENCH_MAX_TESTS 16

/* One llama-bench test: pp (n_gen 0) or tg (n_prompt 0), at a context
 * depth (-d; bench/depth.h says which). */
typedef struct bench_test {
    char name[48];                 /* "pp512", "tg128", "tg128@d2048" as benchio_test_name makes them */
    int n_prompt, n_gen;
    int n_depth;                   /* 0: an empty context */
} bench_test;

/* Parses "pp512,tg128" (ppN and tgN items, N > 0, each optionally at a
 * depth as llama-bench names it, "tg128@d2048"; no duplicates, at most
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
    int reps;                      /* -r (bench/runner.h: 0 = chosen from the measured costs) */
    int timeout_ms;                /* per invocation */
    int no_warmup;                 /* pass --no-warmup */
    int64_t (*clock_ms)(void *ctx);/* the clock the runs' wall_ms is read on; NULL: the
                                      process runner's (simulated-time benchmarks pass theirs) */
    void *clock_ctx;
    struct bench_energy *energy;   /* bench/energy.h: --progress and each result's energy; NULL: none */
} bench_invoke;

/* The runs of one invocation of a group: runs[i] belongs to member member[i]
 * (an index into the group's arms). */
typedef struct bench_group_runs {
    lvd_run *runs;
    size_t *member;
    size_t n;
    int64_t wall_ms;               /* the process's */
    int timed_out;                 /* it was killed at inv.timeout_ms */
    int means_only;                /* its llama-bench printed only means of several repetitions:
                                    * the runs failed, to be measured again at -r 1 */
} bench_group_runs;

/* The llama-bench command of one invocation of group g of plan (engine/argv.h,
 * over the first arm's recorded --help flags): the first arm's parameters
 * with the group's comma lists for the context flags, and --progress when
 * progress is set. 0, or -1 with err when the build lacks a flag it needs. */
int bench_group_cmd(const bench_plan *plan, const bench_group *g, const bench_invoke *inv, int progress,
                    engine_argv *out, lvd_err *err);
/* Its argv alone (NULL-terminated; free with lvd_strv_free); NULL when it
 * cannot be built. */
char **bench_group_argv(const bench_plan *plan, const bench_group *g, const bench_invoke *inv);
/* The argv of one invocation of arm alone. */
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
/* Runs group g of plan once into out (free with bench_group_runs_free); the
 * runs as bench_run_arm fills them. Returns as bench_run_arm. */
int bench_run_group(const bench_plan *plan, const bench_group *g, const bench_invoke *inv, bench_group_runs *out,
                    lvd_err *err);
void bench_group_runs_free(bench_group_runs *r);

#endif
