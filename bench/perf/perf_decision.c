/* perf_decision.c: how good and how fast is the decision rule of
 * stats/stats.h? Simulates two arms with known true speed ratios (1.00, 1.02,
 * 1.05, 1.20) and lognormal noise (1, 3, 5, 10 %), where every llama-bench
 * invocation's first sample is a warm-up outlier (0.6 x). Two protocols:
 *   adaptive: rounds of one invocation per arm (-r 3 by default), warm-up
 *             dropped by stats_warmup, stats_compare after each round, stop when
 *             stats_round_needed says so or at 30 samples per arm;
 *   fixed:    one invocation of -r 10 per arm, one decision.
 * Prints per cell: correct decisions, wrong wins (a win for the slower arm, or
 * any win when the truth is inside the tie band), false ties (a tie when the
 * truth is outside it), undecided, and mean samples per arm. Then the time of
 * one full decision over 6 arms x 2 tests x 30 samples against a 100 ms budget.
 * Not a test: it prints numbers, it passes nothing and fails nothing.
 *   perf_decision [-t TRIALS] [-r PER_ROUND] [-m COMPARISONS] [-w HALF_WIDTH] [-s SEED] */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats/stats.h"

#define WARMUP_FACTOR 0.6
#define MAX_PER_ARM 64

typedef struct arm {
    double kept[MAX_PER_ARM];
    size_t n_kept, n_raw;
} arm;

typedef struct tally {
    int correct, wrong_arm, band_win, false_tie, undecided, trials;
    double samples; /* sum of raw samples per arm at stop */
} tally;

/* One invocation of r repetitions of an arm with true speed center: the
 * first is a warm-up outlier; stats_warmup decides what is kept. */
static void invoke(stats_rng *rng, arm *a, double center, double noise, size_t r)
{
    double seq[MAX_PER_ARM] = {0};
    for (size_t i = 0; i < r; i++) {
        seq[i] = center * exp(noise * stats_rng_normal(rng));
        if (i == 0)
            seq[i] *= WARMUP_FACTOR;
    }
    size_t drop = stats_warmup(seq, r);
    for (size_t i = drop; i < r && a->n_kept < MAX_PER_ARM; i++)
        a->kept[a->n_kept++] = seq[i];
    a->n_raw += r;
}

/* Runs one protocol (per_round samples per invocation, stop at max_samples
 * raw samples per arm) to its end and tallies the outcome against truth. */
static void trial(stats_rng *rng, double ratio, double noise, size_t per_round,
                  size_t max_samples, const stats_rule *rule, tally *t)
{
    arm a = {0}, b = {0};
    stats_comparison c;
    for (;;) {
        invoke(rng, &a, 100.0 * ratio, noise, per_round);
        invoke(rng, &b, 100.0, noise, per_round);
        if (stats_compare(a.kept, a.n_kept, b.kept, b.n_kept, rule, &c) != 0) {
            fprintf(stderr, "perf_decision: %s\n", c.why);
            exit(1);
        }
        if (stats_round_needed(&c, 1, rule) == 0 || a.n_raw + per_round > max_samples)
            break;
    }
    int in_band = ratio >= rule->tie_lo && ratio <= rule->tie_hi;
    t->trials++;
    t->samples += (double)a.n_raw;
    switch (c.outcome) {
    case STATS_WIN_A:
        if (in_band)
            t->band_win++;
        else
            t->correct++;
        break;
    case STATS_WIN_B: /* A is never slower in these scenarios */
        if (in_band)
            t->band_win++;
        else
            t->wrong_arm++;
        break;
    case STATS_TIE:
        if (in_band)
            t->correct++;
        else
            t->false_tie++;
        break;
    case STATS_UNKNOWN:
        t->undecided++;
        break;
    }
}

static void tally_add(tally *into, const tally *t)
{
    into->correct += t->correct;
    into->wrong_arm += t->wrong_arm;
    into->band_win += t->band_win;
    into->false_tie += t->false_tie;
    into->undecided += t->undecided;
    into->trials += t->trials;
    into->samples += t->samples;
}

static void print_cell(const char *label, const tally *t)
{
    double n = t->trials;
    printf(" | %-8s %5.1f %5.1f %5.1f %5.1f %5.1f %5.1f", label, 100.0 * t->correct / n,
           100.0 * t->wrong_arm / n, 100.0 * t->band_win / n, 100.0 * t->false_tie / n,
           100.0 * t->undecided / n, t->samples / n);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One full decision as lvd-bench makes it: 6 arms x 2 tests x 30 samples,
 * warm-up per arm, every pair compared (15 per test), m = 15. */
static double time_full_decision(const stats_rule *base)
{
    enum { ARMS = 6, TESTS = 2, N = 30 };
    static double s[TESTS][ARMS][N];
    stats_rng rng;
    stats_rng_seed(&rng, 77);
    for (int t = 0; t < TESTS; t++)
        for (int a = 0; a < ARMS; a++)
            for (int i = 0; i < N; i++)
                s[t][a][i] = (100.0 + 5.0 * a) * exp(0.03 * stats_rng_normal(&rng));
    stats_rule rule = *base;
    rule.m = ARMS * (ARMS - 1) / 2;
    int reps = 5;
    size_t decided = 0;
    double t0 = now_ms();
    for (int r = 0; r < reps; r++) {
        for (int t = 0; t < TESTS; t++) {
            for (int a = 0; a < ARMS; a++)
                decided += stats_warmup(s[t][a], N);
            for (int a = 0; a < ARMS; a++)
                for (int b = a + 1; b < ARMS; b++) {
                    stats_comparison c;
                    stats_compare(s[t][a], N, s[t][b], N, &rule, &c);
                    decided += c.outcome != STATS_UNKNOWN;
                }
        }
    }
    double ms = (now_ms() - t0) / reps;
    if (decided == (size_t)-1)
        puts(""); /* keep the work observable */
    return ms;
}

int main(int argc, char **argv)
{
    int trials = 200;
    size_t per_round = 3, m = 1;
    uint64_t seed = 1;
    int opt;
    double half_width = -1;
    while ((opt = getopt(argc, argv, "t:r:m:w:s:")) != -1) {
        switch (opt) {
        case 't': trials = atoi(optarg); break;
        case 'r': per_round = (size_t)atoi(optarg); break;
        case 'm': m = (size_t)atoi(optarg); break;
        case 'w': half_width = atof(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        default:
            fprintf(stderr, "usage: perf_decision [-t TRIALS] [-r PER_ROUND] [-m COMPARISONS] "
                            "[-w HALF_WIDTH] [-s SEED]\n");
            return 2;
        }
    }
    if (trials < 1 || per_round < 1 || per_round > 30 || m < 1) {
        fprintf(stderr, "perf_decision: bad option value\n");
        return 2;
    }
    stats_rule rule;
    stats_rule_default(&rule);
    rule.m = m;
    if (half_width >= 0)
        rule.stop_half_width = half_width;

    static const double ratios[] = {1.00, 1.02, 1.05, 1.20};
    static const double noises[] = {0.01, 0.03, 0.05, 0.10};
    printf("decision rule: win p < %.3g/%zu and CI low > %.2f; tie CI in [%.2f, %.2f]; "
           "min %zu kept samples/arm; bootstrap B=%zu\n",
           rule.alpha, rule.m, rule.win, rule.tie_lo, rule.tie_hi, rule.min_samples, rule.boot_b);
    printf("arms: true ratio A/B, lognormal noise, first sample of every invocation x%.1f "
           "(warm-up); %d trials per cell\n", WARMUP_FACTOR, trials);
    printf("adaptive: -r %zu per round, stop when decided or CI half-width <= %.1f %% or %zu samples/arm\n",
           per_round, 100 * rule.stop_half_width, rule.max_samples);
    printf("fixed: one -r 10 run per arm, one decision\n");
    printf("columns (%% of trials): corr = tie inside the band, A's win outside it; wrng = win for\n"
           "the slower arm; bwin = a win while the truth is inside the tie band; ftie = tie outside\n"
           "it; undec = undecided at the stop; smpl = mean samples per arm (warm-up included)\n\n");
    printf("ratio noise | protocol  corr  wrng  bwin  ftie undec  smpl | protocol  corr  wrng  bwin  ftie undec  smpl\n");

    tally total_a = {0}, total_f = {0};
    for (size_t ri = 0; ri < sizeof ratios / sizeof *ratios; ri++) {
        for (size_t ni = 0; ni < sizeof noises / sizeof *noises; ni++) {
            tally ad = {0}, fx = {0};
            stats_rng rng;
            stats_rng_seed(&rng, seed * 1000003u + ri * 16 + ni);
            for (int t = 0; t < trials; t++) {
                trial(&rng, ratios[ri], noises[ni], per_round, rule.max_samples, &rule, &ad);
                trial(&rng, ratios[ri], noises[ni], 10, 10, &rule, &fx);
            }
            printf("%5.2f %4.0f%% ", ratios[ri], 100 * noises[ni]);
            print_cell("adaptive", &ad);
            print_cell("fixed10", &fx);
            printf("\n");
            tally_add(&total_a, &ad);
            tally_add(&total_f, &fx);
        }
    }
    printf("  all cells ");
    print_cell("adaptive", &total_a);
    print_cell("fixed10", &total_f);
    printf("\n\n");

    double ms = time_full_decision(&rule);
    printf("one decision, 6 arms x 2 tests x 30 samples (30 comparisons, B=%zu): %.1f ms "
           "(%.2f x the 100 ms budget)\n", rule.boot_b, ms, ms / 100.0);
    return 0;
}
