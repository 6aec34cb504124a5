/* perf_protocol.c: time to decision and decision accuracy of lvd-bench's
 * adaptive protocol against fixed `-r 10` runs, through the real runner
 * (bench/runner.h) spawning the fake engine (tests/fake-engine) as two
 * arms' llama-bench, on the same scenarios: true tg ratios 1.00, 1.02, 1.05,
 * 1.20 between the arms, per-repetition noise 1 % and 3 %, and a warm-up
 * first repetition at 0.6x in every invocation.
 *   adaptive: rounds of -r 3 per arm, the session's stopping rule, at most
 *             30 kept samples per arm;
 *   fixed:    one -r 10 invocation per arm, one decision (same rule).
 * Per cell and protocol: % correct (a tie when the truth is inside the tie
 * band [0.97, 1.03], the faster arm's win outside it), % wrong (a win inside
 * the band, a tie or the slower arm's win outside it), % undecided, mean
 * invocations and kept samples per arm, and time to decision as the engine
 * would spend it: the samples' own ns (llama-bench's measured time) plus a
 * per-invocation load cost L (model load and llama-bench's warm-up run;
 * -l, default 2 s). Not a test: it prints numbers and fails nothing.
 *   perf_protocol [-t TRIALS] [-l LOAD_SECONDS] [-f FAKE_ENGINE]
 * FAKE_ENGINE defaults to $LVD_FAKE_ENGINE, else ../tests/fake-engine next
 * to this binary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/plan.h"
#include "engine/probe.h"
#include "bench/runner.h"
#include "common/paths.h"
#include "store/identify.h"

#define WARMUP "0.6"

typedef struct tally {
    int correct, wrong, undecided, trials;
    double invocations, samples, engine_s, wall_ms;
} tally;

typedef struct world {
    char *tmp, *model;
    store *s;
    store_artifact art;
    lvd_engine e[2];
    lvd_probe p[2];
    bench_plan plan;
} world;

static void die(const char *what, const lvd_err *err)
{
    fprintf(stderr, "perf_protocol: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

static char *default_fake(void)
{
    const char *env = getenv("LVD_FAKE_ENGINE");
    if (env && *env)
        return strdup(env);
    char *dir = lvd_exe_dir();
    if (!dir)
        return NULL;
    char *fake = lvd_xasprintf("%s/../tests/fake-engine", dir);
    free(dir);
    return fake;
}

static void write_scenario(const world *w, int i, double tg, double noise)
{
    char *path = lvd_xasprintf("%s/fake-scenario", w->e[i].dir);
    char *text = lvd_xasprintf("device = CUDA0|NVIDIA H200|143155|142629|9.0\n"
                               "dev.CUDA0.tg = %.6f\nnoise = %.4f\nwarmup = " WARMUP "\n", tg, noise);
    lvd_err err = {0};
    if (lvd_write_file_atomic(path, text, strlen(text), &err))
        die("scenario", &err);
    free(text);
    free(path);
}

static void world_init(world *w, const char *fake)
{
    memset(w, 0, sizeof *w);
    char tmpl[] = "/tmp/perf-protocol-XXXXXX";
    if (!mkdtemp(tmpl))
        die("mkdtemp", NULL);
    w->tmp = lvd_xstrdup(tmpl);
    w->model = lvd_xasprintf("%s/model.gguf", w->tmp);
    char gguf[64] = "GGUF";
    lvd_err err = {0};
    char *db = lvd_xasprintf("%s/store.db", w->tmp);
    if (lvd_write_file_atomic(w->model, gguf, sizeof gguf, &err) ||
        store_open(db, STORE_OPEN_CREATE, &w->s, &err) ||
        store_identify(w->s, w->model, 1, &w->art, NULL, &err))
        die("setup", &err);
    free(db);
    const char *names[2] = {"a", "b"};
    for (int i = 0; i < 2; i++) {
        lvd_engine *e = &w->e[i];
        e->name = lvd_xstrdup(names[i]);
        e->dir = lvd_xasprintf("%s/%s", w->tmp, names[i]);
        e->build = lvd_xstrdup("b9749");
        e->origin = lvd_xstrdup("registered");
        e->flavour = lvd_xstrdup("local");
        mkdir(e->dir, 0755);
        char *bin = lvd_xasprintf("%s/llama-bench", e->dir);
        if (symlink(fake, bin))
            die("symlink to the fake engine", NULL);
        free(bin);
        write_scenario(w, i, 100, 0.01);
        if (store_engine_put(w->s, e, &err) || engine_probe_engine(w->s, e, 1, 0, &w->p[i], &err))
            die("engine", &err);
    }
    static const int fa_on[] = {1};
    bench_plan_opts po = {.fa = fa_on, .n_fa = 1};
    if (bench_plan_build(w->e, w->p, 2, &po, &w->plan, &err) || w->plan.n_arms != 2)
        die("plan", &err);
}

static void world_free(world *w)
{
    bench_plan_free(&w->plan);
    for (int i = 0; i < 2; i++) {
        lvd_engine_free(&w->e[i]);
        lvd_probe_free(&w->p[i]);
    }
    store_artifact_free(&w->art);
    store_close(w->s);
    lvd_rm_rf(w->tmp);
    free(w->tmp);
    free(w->model);
}

/* The engine time of a session's runs: the sum of every sample's ns. */
static double engine_seconds(world *w, const char *session)
{
    store_run_filter f = {.session = session, .with_samples = 1};
    lvd_run *runs;
    size_t n;
    lvd_err err = {0};
    if (store_run_list(w->s, &f, &runs, &n, &err))
        die("runs", &err);
    double ns = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t r = 0; r < runs[i].n_results; r++)
            for (size_t k = 0; k < runs[i].results[r].n; k++)
                ns += (double)runs[i].results[r].ns[k];
    store_run_list_free(runs, n);
    return ns / 1e9;
}

/* One session of one protocol; tallies against the truth (arm 0 is A). */
static void trial(world *w, double ratio, int reps, size_t max_samples, double load_s, int id, tally *t)
{
    static bench_test tg[] = {{"tg128", 0, 128}};
    char session[64];
    snprintf(session, sizeof session, "perf-%d", id);
    char seed[32];
    snprintf(seed, sizeof seed, "%d", id);
    setenv("FAKE_SEED", seed, 1);
    bench_session_opts o = {
        .inv = {.model = w->model, .tests = tg, .n_tests = 1, .reps = reps, .timeout_ms = 30000},
        .artifact = w->art.sha256, .host = "perf", .session = session, .max_samples = max_samples,
    };
    stats_objective_default(&o.objective);
    stats_rule_default(&o.rule);
    bench_session s;
    lvd_err err = {0};
    if (bench_session_run(w->s, &w->plan, &o, &s, &err))
        die("session", &err);
    const stats_ranking *r = bench_session_decider(&s, 0);
    int in_band = ratio >= o.rule.tie_lo && ratio <= o.rule.tie_hi;
    int right = r->state == STATS_RANK_TIE ? in_band : !in_band && r->leader == 0;
    if (r->state == STATS_RANK_TIE || r->state == STATS_RANK_WIN)
        *(right ? &t->correct : &t->wrong) += 1;
    else
        t->undecided++;
    t->trials++;
    size_t runs = s.st[0].runs + s.st[1].runs;
    t->invocations += runs / 2.0;
    t->samples += (s.st[0].series[0].n_kept + s.st[1].series[0].n_kept) / 2.0;
    t->engine_s += engine_seconds(w, session) + load_s * (double)runs;
    t->wall_ms += (double)s.wall_ms;
    bench_session_free(&s);
}

static void print_cell(const tally *t)
{
    double n = t->trials;
    printf(" | %5.0f %5.0f %5.0f %5.1f %5.1f %7.2f %6.1f", 100.0 * t->correct / n, 100.0 * t->wrong / n,
           100.0 * t->undecided / n, t->invocations / n, t->samples / n, t->engine_s / n, t->wall_ms / n);
}

int main(int argc, char **argv)
{
    int trials = 20, opt;
    double load_s = 2.0;
    char *fake = NULL;
    while ((opt = getopt(argc, argv, "t:l:f:")) != -1) {
        switch (opt) {
        case 't': trials = atoi(optarg); break;
        case 'l': load_s = atof(optarg); break;
        case 'f': fake = strdup(optarg); break;
        default:
            fprintf(stderr, "usage: perf_protocol [-t TRIALS] [-l LOAD_SECONDS] [-f FAKE_ENGINE]\n");
            return 2;
        }
    }
    if (!fake)
        fake = default_fake();
    if (!fake || access(fake, X_OK) || trials < 1 || load_s < 0) {
        fprintf(stderr, "perf_protocol: no fake engine (set LVD_FAKE_ENGINE or -f) or bad option\n");
        return 2;
    }
    setenv("LVD_NO_PROGRESS", "1", 1);
    world w;
    world_init(&w, fake);

    static const double ratios[] = {1.00, 1.02, 1.05, 1.20};
    static const double noises[] = {0.01, 0.03};
    printf("perf_protocol: two arms through bench/runner.c and the fake engine (%s), tg128 only,\n"
           "first repetition of every invocation x" WARMUP " (warm-up); %d trials per cell\n"
           "adaptive: rounds of -r 3, stop when every comparison is decided or settled, or at 30 kept\n"
           "samples per arm; fixed: one -r 10 invocation per arm, then the same decision rule\n"
           "columns: %% correct, %% wrong, %% undecided; invocations and kept samples per arm;\n"
           "engine s = the samples' own ns + %.1f s load per invocation (time to decision on the\n"
           "engine); wall ms = this process (spawns + statistics)\n\n",
           fake, trials, load_s);
    printf("ratio noise | adaptive: corr  wrng undec  inv/a smp/a engine-s wallms"
           " | fixed:    corr  wrng undec  inv/a smp/a engine-s wallms | time a/f\n");
    tally all_a = {0}, all_f = {0};
    int id = 0;
    for (size_t r = 0; r < LVD_ARRAY_LEN(ratios); r++) {
        for (size_t k = 0; k < LVD_ARRAY_LEN(noises); k++) {
            write_scenario(&w, 0, 100.0 * ratios[r], noises[k]);
            write_scenario(&w, 1, 100.0, noises[k]);
            tally a = {0}, f = {0};
            for (int i = 0; i < trials; i++) {
                trial(&w, ratios[r], 3, 30, load_s, ++id, &a);
                trial(&w, ratios[r], 10, 1, load_s, ++id, &f);
            }
            printf("%5.2f %4.0f%% |         ", ratios[r], 100 * noises[k]);
            print_cell(&a);
            printf(" |       ");
            print_cell(&f);
            printf(" | %5.2f\n", a.engine_s / f.engine_s);
            fflush(stdout);
            all_a.correct += a.correct, all_a.wrong += a.wrong, all_a.undecided += a.undecided;
            all_a.trials += a.trials, all_a.engine_s += a.engine_s;
            all_f.correct += f.correct, all_f.wrong += f.wrong, all_f.undecided += f.undecided;
            all_f.trials += f.trials, all_f.engine_s += f.engine_s;
        }
    }
    printf("\nall cells: adaptive %.0f %% correct, %.0f %% wrong, %.0f %% undecided, %.1f engine-s per decision;\n"
           "           fixed    %.0f %% correct, %.0f %% wrong, %.0f %% undecided, %.1f engine-s per decision\n",
           100.0 * all_a.correct / all_a.trials, 100.0 * all_a.wrong / all_a.trials,
           100.0 * all_a.undecided / all_a.trials, all_a.engine_s / all_a.trials,
           100.0 * all_f.correct / all_f.trials, 100.0 * all_f.wrong / all_f.trials,
           100.0 * all_f.undecided / all_f.trials, all_f.engine_s / all_f.trials);
    world_free(&w);
    free(fake);
    return 0;
}
