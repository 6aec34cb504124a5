/* perf_protocol.c: seconds per correct decision and wrong-decision rate of
 * lvd-bench's protocols, through the real runner (bench/runner.h) spawning
 * the fake engine (tests/fake-engine) as llama-bench, on simulated time: the
 * fake engine sleeps for nothing and appends each invocation's simulated
 * duration (load_ms per model load + its warm-up runs + every sample's ns) to
 * a sim_clock file; the session's clock is the real clock plus that sum.
 * Protocols:
 *   fixed   one -r 10 invocation per arm (max_rounds 1), then the decision rule;
 *   before  the protocol before the cost model: every arm its own process, rounds
 *           of -r 3 (first invocation min_samples + 1), at most 30 samples;
 *   new     the cost model (bench/cost.h), shared processes (bench/group.h),
 *           racing (bench/race.h), --no-warmup when steady, 30 samples;
 *           on a first night (no prices in the store, o.no_prices);
 *   new, night 2  the same right after "new" in the same store: its
 *           prices are carried over from that session (bench/prices.h).
 * Every other protocol runs as a first night (o.no_prices); fixed and before
 * take their -r as given, so a second night would not change them.
 * Common random numbers: the protocols of one trial run on one seed
 * (FAKE_SEED) with the fake engine's invocation counter reset before each
 * session, so an invocation with the same arguments at the same place in two
 * protocols' sessions draws the same samples (the grid's first look of 10 is
 * fixed's -r 10: where the new protocol stops at its first look it decides
 * exactly what fixed decides); the protocols then differ by their rules, not
 * by their luck.
 * Scenarios:
 *   grid    two engines, one arm each, true tg ratios 1.00 1.02 1.05 1.20 at
 *           1 % and 3 % noise, a x0.6 first repetition in every invocation;
 *   night   one model, three engines at the H200 captures' speeds (CPU-only
 *           tg 54 / pp 434, CUDA 995 / 85700, Vulkan 704 / 17400), fa on and
 *           off on each GPU engine (CUDA tg +1 %: a tie; Vulkan fa on -4 %),
 *           GGML_VK_PREFER_HOST_MEMORY=1 as the environment variant (tg x0.044
 *           as measured), noise 1-3 %, the captures' warm-up ramps (CUDA one
 *           cold pp sample x0.57, Vulkan pp 0.24, 0.31, 0.35), pp512 + tg128,
 *           objective tg.
 * Per cell and protocol: % correct, % wrong (a win inside the tie band, the
 * slower arm's win, a tie outside the band), engine seconds (the session's
 * llama-bench time on the simulated clock) per correct decision, and the
 * tool's own overhead (real session wall - real process wall) as a share of
 * the session's wall. Not a test: it prints numbers and fails nothing.
 *   perf_protocol [-t TRIALS] [-l LOAD_SECONDS] [-s grid|night|all] [-f FAKE_ENGINE] [-v]
 * -v prints each new session's prices and chosen -r (bench/costreport.h).
 * Without -l: L = 2 s and L = 20 s. FAKE_ENGINE defaults to $LVD_FAKE_ENGINE,
 * else ../tests/fake-engine next to this binary. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/plan.h"
#include "bench/runner.h"
#include "bench/costreport.h"
#include "common/paths.h"
#include "engine/probe.h"
#include "store/identify.h"

#define MAX_ENGINES 3
#define MAX_ARMS 8

enum { P_FIXED, P_BEFORE, P_NEW, P_NEW2, P_COUNT };
static const char *const PROTO[P_COUNT] = {"fixed -r 10", "before", "new", "new, night 2"};

typedef struct tally {
    int correct, wrong, trials;
    double engine_s, samples, overhead_ms, wall_ms;
} tally;

typedef struct sim_clock {
    char *path;
    long off;
    double ns;
} sim_clock;

typedef struct world {
    char *tmp, *model;
    store *s;
    store_artifact art;
    lvd_engine e[MAX_ENGINES];
    lvd_probe p[MAX_ENGINES];
    size_t n;
    bench_plan plan;
    sim_clock clock;
    double truth[MAX_ARMS];        /* true tg speed per plan arm */
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

/* The session clock: real ms + the simulated ns the fake engines reported. */
static int64_t clock_ms(void *ctx)
{
    sim_clock *c = ctx;
    FILE *f = fopen(c->path, "r");
    if (f) {
        fseek(f, c->off, SEEK_SET);
        double v;
        while (fscanf(f, "%lf", &v) == 1)
            c->ns += v;
        c->off = ftell(f);
        fclose(f);
    }
    return lvd_mono_ms() + (int64_t)(c->ns / 1e6);
}

static void write_scenario(const world *w, size_t i, const char *body, double load_s)
{
    char *path = lvd_xasprintf("%s/fake-scenario", w->e[i].dir);
    char *text = lvd_xasprintf("%s\nsim_clock = %s\nload_ms = %.0f\n", body, w->clock.path, load_s * 1000);
    lvd_err err = {0};
    if (lvd_write_file_atomic(path, text, strlen(text), &err))
        die("scenario", &err);
    free(text);
    free(path);
}

static void world_init(world *w, const char *fake, size_t n)
{
    memset(w, 0, sizeof *w);
    char tmpl[] = "/tmp/perf-protocol-XXXXXX";
    if (!mkdtemp(tmpl))
        die("mkdtemp", NULL);
    w->tmp = lvd_xstrdup(tmpl);
    w->model = lvd_xasprintf("%s/model.gguf", w->tmp);
    w->clock.path = lvd_xasprintf("%s/sim-clock", w->tmp);
    w->n = n;
    char gguf[64] = "GGUF";
    lvd_err err = {0};
    char *db = lvd_xasprintf("%s/store.db", w->tmp);
    if (lvd_write_file_atomic(w->model, gguf, sizeof gguf, &err) ||
        store_open(db, STORE_OPEN_CREATE, &w->s, &err) ||
        store_identify(w->s, w->model, 1, &w->art, NULL, &err))
        die("setup", &err);
    free(db);
    static const char *const names[MAX_ENGINES] = {"a", "b", "c"};
    for (size_t i = 0; i < n; i++) {
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
    }
}

static void world_probe(world *w, const bench_plan_opts *po)
{
    lvd_err err = {0};
    for (size_t i = 0; i < w->n; i++)
        if (store_engine_put(w->s, &w->e[i], &err) || engine_probe_engine(w->s, &w->e[i], 1, 0, &w->p[i], &err))
            die("engine", &err);
    if (bench_plan_build(w->e, w->p, w->n, po, &w->plan, &err) || w->plan.n_arms > MAX_ARMS)
        die("plan", &err);
}

static void world_free(world *w)
{
    bench_plan_free(&w->plan);
    for (size_t i = 0; i < w->n; i++) {
        lvd_engine_free(&w->e[i]);
        lvd_probe_free(&w->p[i]);
    }
    store_artifact_free(&w->art);
    store_close(w->s);
    lvd_rm_rf(w->tmp);
    free(w->tmp);
    free(w->model);
    free(w->clock.path);
}

/* 1 correct, -1 wrong, 0 undecided: r against the true speeds (the band: arms
 * within tie_hi of the fastest; a win needs the band to be the leader alone,
 * a tie needs the leader in it and the tied arms to be the rest of it). */
static int judge(const world *w, const stats_ranking *r, const stats_rule *rule)
{
    if (r->state != STATS_RANK_WIN && r->state != STATS_RANK_TIE)
        return 0;
    double best = 0;
    for (size_t i = 0; i < w->plan.n_arms; i++)
        best = w->truth[i] > best ? w->truth[i] : best;
    if (best / w->truth[r->leader] > rule->tie_hi)
        return -1;
    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        if (!e->rank || e->arm == r->leader)
            continue;
        int in_band = best / w->truth[e->arm] <= rule->tie_hi;
        if (in_band != (e->tied_with_leader != 0))
            return -1;
    }
    return 1;
}

/* One session of protocol p; tallied. */
static int verbose;

static void trial(world *w, int p, const bench_test *tests, size_t n_tests, int id, tally *t)
{
    char session[64], seed[32];
    snprintf(session, sizeof session, "perf-%d-%d", id, p); /* one id per session */
    snprintf(seed, sizeof seed, "%d", id);
    setenv("FAKE_SEED", seed, 1);
    for (size_t i = 0; i < w->n; i++) { /* common random numbers: every session counts from 0 */
        char *counter = lvd_xasprintf("%s/fake-counter", w->e[i].dir);
        unlink(counter);
        free(counter);
    }
    bench_session_opts o = {
        .inv = {.model = w->model, .tests = tests, .n_tests = n_tests, .reps = p == P_FIXED ? 10 : p == P_BEFORE ? 3 : 0,
                .timeout_ms = 30000},
        .artifact = w->art.sha256, .host = "perf", .session = session,
        .max_samples = p == P_FIXED ? 10 : 30, .max_rounds = p == P_FIXED ? 1 : 0,
        .first_reps = p == P_FIXED ? 10 : p == P_BEFORE ? 6 : 0,
        .no_share = p < P_NEW, .no_prices = p != P_NEW2, .clock_ms = clock_ms, .clock_ctx = &w->clock,
    };
    stats_objective_default(&o.objective);
    stats_rule_default(&o.rule);
    bench_session s;
    lvd_err err = {0};
    double sim0 = (clock_ms(&w->clock), w->clock.ns);
    int64_t real0 = lvd_mono_ms();
    if (bench_session_run(w->s, &w->plan, &o, &s, &err))
        die("session", &err);
    double real = (double)(lvd_mono_ms() - real0), sim = (clock_ms(&w->clock), w->clock.ns - sim0) / 1e6;
    size_t t_tg = n_tests - 1;
    int v = judge(w, bench_session_decider(&s, t_tg), &o.rule);
    t->correct += v > 0;
    t->wrong += v < 0;
    t->trials++;
    t->engine_s += (double)s.engine_ms / 1000.0;
    for (size_t i = 0; i < w->plan.n_arms; i++)
        t->samples += (double)s.st[i].series[t_tg].n_kept / (double)w->plan.n_arms;
    double proc_real = (double)s.engine_ms - sim;
    t->overhead_ms += real - proc_real;
    t->wall_ms += sim + real;
    if (verbose && p >= P_NEW) { /* -v: the new protocol's prices and -r, per session */
        printf("--- %s, %s: %zu rounds, %.1f engine s\n", PROTO[p], session, s.rounds, s.engine_ms / 1000.0);
        bench_costs_print(stdout, &s);
    }
    bench_session_free(&s);
}

static void print_cell(const tally *t)
{
    double n = t->trials;
    if (t->correct)
        printf(" | %4.0f %5.1f %7.1f", 100.0 * t->correct / n, 100.0 * t->wrong / n, t->engine_s / t->correct);
    else
        printf(" | %4.0f %5.1f %7s", 0.0, 100.0 * t->wrong / n, "inf");
}

static void add(tally *a, const tally *b)
{
    a->correct += b->correct, a->wrong += b->wrong, a->trials += b->trials;
    a->engine_s += b->engine_s, a->samples += b->samples;
    a->overhead_ms += b->overhead_ms, a->wall_ms += b->wall_ms;
}

/* Seconds per correct decision of t (inf when none was correct). */
static double per_correct(const tally *t)
{
    return t->correct ? t->engine_s / t->correct : INFINITY;
}

static void print_totals(const char *what, const tally *all, int np)
{
    printf("%s:", what);
    for (int p = 0; p < np; p++)
        printf(" %s %.0f %% correct, %.1f %% wrong, %.1f s per correct decision, overhead %.2f %%;", PROTO[p],
               100.0 * all[p].correct / all[p].trials, 100.0 * all[p].wrong / all[p].trials, per_correct(&all[p]),
               100.0 * all[p].overhead_ms / all[p].wall_ms);
    printf("\n  new / fixed seconds per correct decision: %.2f", per_correct(&all[P_NEW]) / per_correct(&all[P_FIXED]));
    if (np > P_NEW2)
        printf("; night 2: %.2f", per_correct(&all[P_NEW2]) / per_correct(&all[P_FIXED]));
    printf("\n\n");
}

static void header(int np)
{
    printf("            ");
    for (int p = 0; p < np; p++)
        printf(" | %-18s", PROTO[p]);
    printf("\n            ");
    for (int p = 0; p < np; p++)
        printf(" | corr wrong  s/corr");
    printf("\n");
}

static void grid(const char *fake, int trials, double load_s)
{
    world w;
    world_init(&w, fake, 2);
    static const int fa_on[] = {1};
    bench_plan_opts po = {.fa = fa_on, .n_fa = 1};
    for (size_t i = 0; i < 2; i++)
        write_scenario(&w, i, "device = CUDA0|NVIDIA H200|143155|142629|9.0", load_s);
    world_probe(&w, &po);
    static const double ratios[] = {1.00, 1.02, 1.05, 1.20};
    static const double noises[] = {0.01, 0.03};
    static const bench_test tg[] = {{"tg128", 0, 128, 0}};
    printf("grid: two engines, tg128, L = %.0f s, %d trials per cell\nratio noise", load_s, trials);
    header(P_NEW2);
    tally all[P_COUNT] = {{0}};
    int id = 0;
    for (size_t r = 0; r < LVD_ARRAY_LEN(ratios); r++) {
        for (size_t k = 0; k < LVD_ARRAY_LEN(noises); k++) {
            for (size_t i = 0; i < 2; i++) {
                double tgs = i == 0 ? 100.0 * ratios[r] : 100.0;
                char *body = lvd_xasprintf("device = CUDA0|NVIDIA H200|143155|142629|9.0\ndev.CUDA0.tg = %.6f\n"
                                           "noise = %.4f\nwarmup = 0.6", tgs, noises[k]);
                write_scenario(&w, i, body, load_s);
                free(body);
                w.truth[i] = tgs;
            }
            tally t[P_COUNT] = {{0}};
            for (int i = 0; i < trials; i++, id++)
                for (int p = 0; p < P_NEW2; p++)
                    trial(&w, p, tg, 1, id, &t[p]);
            printf("%5.2f %4.0f%% ", ratios[r], 100 * noises[k]);
            for (int p = 0; p < P_NEW2; p++) {
                print_cell(&t[p]);
                add(&all[p], &t[p]);
            }
            printf("\n");
            fflush(stdout);
        }
    }
    char what[64];
    snprintf(what, sizeof what, "grid, L = %.0f s, all cells", load_s);
    print_totals(what, all, P_NEW2);
    world_free(&w);
}

/* The night's true tg speed of plan arm a. */
static double night_truth(const bench_arm *a)
{
    if (!strcmp(a->backend, "cpu"))
        return 54;
    int vk = !strcmp(a->backend, "vulkan");
    double tg = vk ? 704 : 995;
    if (a->params.fa == 1)
        tg *= vk ? 0.96 : 1.01;
    if (*a->params.env)
        tg *= 0.044;
    return tg;
}

static void night(const char *fake, int trials, double load_s)
{
    world w;
    world_init(&w, fake, 3);
    static const char *const body[3] = {
        "cpu.pp = 434\ncpu.tg = 54\nnoise = 0.03\nwarmup = 1",
        "device = CUDA0|NVIDIA H200|143155|142629|9.0\ndev.CUDA0.pp = 85700\ndev.CUDA0.tg = 995\n"
        "dev.CUDA0.tg.fa=1 = 1.01\ndev.CUDA0.pp.fa=1 = 1.10\nnoise = 0.01\ndev.CUDA0.pp.warmup = 0.57\n"
        "dev.CUDA0.tg.warmup = 1\ncold = 0.8",
        "device = Vulkan0|NVIDIA H200 (NVIDIA)|143155|142629\ndev.Vulkan0.pp = 17400\ndev.Vulkan0.tg = 704\n"
        "dev.Vulkan0.tg.fa=1 = 0.96\ntg.env.GGML_VK_PREFER_HOST_MEMORY=1 = 0.044\nnoise = 0.02\n"
        "dev.Vulkan0.pp.warmup = 0.24,0.31,0.35\ndev.Vulkan0.tg.warmup = 1\ncold = 0.8",
    };
    for (size_t i = 0; i < 3; i++)
        write_scenario(&w, i, body[i], load_s);
    static const char *const env[] = {"GGML_VK_PREFER_HOST_MEMORY=1"};
    bench_plan_opts po = {.env = env, .n_env = 1};
    world_probe(&w, &po);
    for (size_t i = 0; i < w.plan.n_arms; i++)
        w.truth[i] = night_truth(&w.plan.arms[i]);
    static const bench_test tests[] = {{"pp512", 512, 0, 0}, {"tg128", 0, 128, 0}};
    printf("night: %zu arms (CPU; CUDA fa on/off; Vulkan fa on/off, each also with "
           "GGML_VK_PREFER_HOST_MEMORY=1), pp512 + tg128, objective tg, L = %.0f s, %d trials\n     ",
           w.plan.n_arms, load_s, trials);
    header(P_COUNT);
    tally t[P_COUNT] = {{0}};
    for (int i = 0; i < trials; i++)
        for (int p = 0; p < P_COUNT; p++)
            trial(&w, p, tests, 2, 1000 + i, &t[p]);
    printf("night");
    for (int p = 0; p < P_COUNT; p++)
        print_cell(&t[p]);
    printf("\n");
    char what[64];
    snprintf(what, sizeof what, "night, L = %.0f s", load_s);
    print_totals(what, t, P_COUNT);
    world_free(&w);
}

int main(int argc, char **argv)
{
    int trials = 20, opt;
    double load_s = -1;
    const char *which = "all";
    char *fake = NULL;
    while ((opt = getopt(argc, argv, "t:l:s:f:v")) != -1) {
        switch (opt) {
        case 't': trials = atoi(optarg); break;
        case 'l': load_s = atof(optarg); break;
        case 's': which = optarg; break;
        case 'f': fake = strdup(optarg); break;
        case 'v': verbose = 1; break;
        default:
            fprintf(stderr, "usage: perf_protocol [-t TRIALS] [-l LOAD_SECONDS] [-s grid|night|all] [-f FAKE_ENGINE] [-v]\n");
            return 2;
        }
    }
    if (!fake)
        fake = default_fake();
    if (!fake || access(fake, X_OK) || trials < 1) {
        fprintf(stderr, "perf_protocol: no fake engine (set LVD_FAKE_ENGINE or -f) or bad option\n");
        return 2;
    }
    setenv("LVD_NO_PROGRESS", "1", 1);
    printf("perf_protocol: bench/runner.c and the fake engine (%s) on simulated time;\n"
           "corr = %% correct, wrong = %% wrong decisions, s/corr = engine seconds per correct decision\n\n", fake);
    const double loads[] = {2, 20};
    for (size_t k = 0; k < 2; k++) {
        double l = load_s >= 0 ? load_s : loads[k];
        if (strcmp(which, "night"))
            grid(fake, trials, l);
        if (strcmp(which, "grid"))
            night(fake, trials, l);
        if (load_s >= 0)
            break;
    }
    free(fake);
    return 0;
}
