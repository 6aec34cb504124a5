/* perf_decision.c: how often is the decision rule of stats/stats.h wrong, and
 * how fast does it decide, when the adaptive protocol looks after every
 * round? Simulates two arms, A at a known true speed ratio to B, with
 * lognormal noise (1, 2, 3 %), in rounds of PER_ROUND samples per arm (3), a
 * look after every round, up to 30 samples per arm (10 looks). Two rules
 * decide on the same samples:
 *   OLD: the former rule, Mann-Whitney p < alpha/m and bootstrap CI low >
 *        1.03 (min 5 samples per arm), re-tested at every look as it was;
 *   NEW: stats_compare with rule.look = the look (stats.h, "Sequential wins").
 * Each rule stops where stats_round_needed says so (its own outcomes) or at
 * the cap. Printed per cell:
 *   type I (true 1.00 and 1.03: a win there is wrong, the win threshold being
 *     CI low > 1.03): % of trials whose decision at the stop is a win, and %
 *     with a win at ANY look (a protocol that never stops early);
 *   power (true 1.05, 1.10, 2, 357): % decided as A's win at the stop, % won
 *     at the first look, mean samples per arm at the stop.
 * Then the time of one full decision over 6 arms x 2 tests x 30 samples.
 * Not a test: it prints numbers, it passes nothing and fails nothing.
 *   perf_decision [-t TRIALS] [-p POWER_TRIALS] [-r PER_ROUND] [-m COMPARISONS] [-s SEED] */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "stats/stats.h"

#define MAX_PER_ARM 30

enum { OLD = 0, NEW = 1, RULES = 2 };
static const char *const RULE_NAME[RULES] = {"old", "new"};

/* One rule's course through a trial. */
typedef struct course {
    int stopped;
    stats_outcome at_stop;
    size_t samples;        /* per arm at the stop */
    size_t first_win_look; /* first look with a win for A; 0: none */
    int any_win;           /* a win (either arm) at some look */
} course;

typedef struct tally {
    int trials;
    int win_at_stop, win_a_at_stop, any_win, first_look_win;
    double samples;
} tally;

/* The former rule, from the comparison's shown statistics. */
static stats_outcome old_outcome(const stats_comparison *c, const stats_rule *r)
{
    if (c->a.n < r->min_samples || c->b.n < r->min_samples)
        return STATS_UNKNOWN;
    int significant = c->p < c->p_threshold;
    if (significant && c->ci_lo > r->win)
        return STATS_WIN_A;
    if (significant && c->ci_hi < 1.0 / r->win)
        return STATS_WIN_B;
    if (c->ci_lo >= r->tie_lo && c->ci_hi <= r->tie_hi)
        return STATS_TIE;
    return STATS_UNKNOWN;
}

/* Applies one look's outcome o to course k. */
static void course_look(course *k, stats_comparison c, stats_outcome o, size_t look, int last,
                        const stats_rule *rule)
{
    int win = o == STATS_WIN_A || o == STATS_WIN_B;
    k->any_win |= win;
    if (o == STATS_WIN_A && !k->first_win_look)
        k->first_win_look = look;
    if (k->stopped)
        return;
    c.outcome = o;
    if (stats_round_needed(&c, 1, rule) == 0 || last) {
        k->stopped = 1;
        k->at_stop = o;
        k->samples = c.a.n;
    }
}

/* One trial: rounds of per_round samples per arm, a look after each, both
 * rules followed; keep_looking: look to the cap even when both stopped. */
static void trial(stats_rng *rng, double ratio, double noise, size_t per_round,
                  const stats_rule *base, int keep_looking, course out[RULES])
{
    double a[MAX_PER_ARM], b[MAX_PER_ARM];
    size_t n = 0;
    stats_rule rule = *base;
    for (int r = 0; r < RULES; r++)
        out[r] = (course){0};
    for (size_t look = 1; n + per_round <= MAX_PER_ARM; look++) {
        for (size_t i = 0; i < per_round; i++, n++) {
            a[n] = 100.0 * ratio * exp(noise * stats_rng_normal(rng));
            b[n] = 100.0 * exp(noise * stats_rng_normal(rng));
        }
        rule.look = look;
        stats_comparison c;
        if (stats_compare(a, n, b, n, &rule, &c) != 0) {
            fprintf(stderr, "perf_decision: %s\n", c.why);
            exit(1);
        }
        int last = n + per_round > MAX_PER_ARM;
        course_look(&out[OLD], c, old_outcome(&c, &rule), look, last, &rule);
        course_look(&out[NEW], c, c.outcome, look, last, &rule);
        if (!keep_looking && out[OLD].stopped && out[NEW].stopped)
            break;
    }
}

static void tally_add(tally *t, const course *k)
{
    t->trials++;
    t->win_at_stop += k->at_stop == STATS_WIN_A || k->at_stop == STATS_WIN_B;
    t->win_a_at_stop += k->at_stop == STATS_WIN_A;
    t->any_win += k->any_win;
    t->first_look_win += k->first_win_look == 1;
    t->samples += (double)k->samples;
}

static double pct(int x, int n)
{
    return 100.0 * x / n;
}

/* Runs trials of one cell and prints its row. */
static void cell(uint64_t seed, double ratio, double noise, int trials, size_t per_round,
                 const stats_rule *rule, int type_one, tally total[RULES])
{
    tally t[RULES] = {{0}};
    stats_rng rng;
    stats_rng_seed(&rng, seed);
    for (int i = 0; i < trials; i++) {
        course k[RULES];
        trial(&rng, ratio, noise, per_round, rule, type_one, k);
        for (int r = 0; r < RULES; r++) {
            tally_add(&t[r], &k[r]);
            tally_add(&total[r], &k[r]);
        }
    }
    printf("%7.2f %4.0f%%", ratio, 100 * noise);
    for (int r = 0; r < RULES; r++) {
        if (type_one)
            printf("  | %s %6.2f %6.2f", RULE_NAME[r], pct(t[r].win_at_stop, t[r].trials),
                   pct(t[r].any_win, t[r].trials));
        else
            printf("  | %s %6.1f %6.1f %5.1f", RULE_NAME[r], pct(t[r].win_a_at_stop, t[r].trials),
                   pct(t[r].first_look_win, t[r].trials), t[r].samples / t[r].trials);
    }
    printf("\n");
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

static void print_header(const stats_rule *rule, int trials, size_t per_round)
{
    printf("two arms, A at a true ratio to B, lognormal noise; a look every round of %zu samples "
           "per arm, up to %d per arm (%d looks)\n", per_round, MAX_PER_ARM,
           (int)(MAX_PER_ARM / per_round));
    printf("old: Mann-Whitney p < %.3g/%zu and bootstrap CI low > %.2f (min %zu samples/arm), "
           "re-tested every look\n", rule->alpha, rule->m, rule->win, rule->min_samples);
    printf("new: sequential interval low > %.2f, alpha_1 = %.2f * %.3g, alpha_k = %.2f * %.3g * "
           "6/(pi^2 (k-1)^2) for k >= 2, / %zu over looks k (min %zu samples/arm)\n", rule->win,
           STATS_ALPHA_FIRST, rule->alpha, 1 - STATS_ALPHA_FIRST, rule->alpha, rule->m, rule->win_min_samples);
    printf("both: tie when the bootstrap CI is inside [%.2f, %.2f]; stop when decided, CI "
           "half-width <= %.1f %%, or at the cap\n\n", rule->tie_lo, rule->tie_hi,
           100 * rule->stop_half_width);
    printf("TYPE I (%d trials per cell): %% of trials with a win at the stop / at any look\n",
           trials);
    printf("  ratio noise  | rule stop    any  | rule stop    any\n");
}

int main(int argc, char **argv)
{
    int trials = 1500, power_trials = 400;
    size_t per_round = 3, m = 1;
    uint64_t seed = 1;
    int opt;
    while ((opt = getopt(argc, argv, "t:p:r:m:s:")) != -1) {
        switch (opt) {
        case 't': trials = atoi(optarg); break;
        case 'p': power_trials = atoi(optarg); break;
        case 'r': per_round = (size_t)atoi(optarg); break;
        case 'm': m = (size_t)atoi(optarg); break;
        case 's': seed = strtoull(optarg, NULL, 10); break;
        default:
            fprintf(stderr, "usage: perf_decision [-t TRIALS] [-p POWER_TRIALS] [-r PER_ROUND] "
                            "[-m COMPARISONS] [-s SEED]\n");
            return 2;
        }
    }
    if (trials < 1 || power_trials < 1 || per_round < 1 || per_round > MAX_PER_ARM || m < 1) {
        fprintf(stderr, "perf_decision: bad option value\n");
        return 2;
    }
    stats_rule rule;
    stats_rule_default(&rule);
    rule.m = m;
    static const double null_ratios[] = {1.00, 1.03};
    static const double power_ratios[] = {1.05, 1.10, 2.0, 357.0};
    static const double noises[] = {0.01, 0.02, 0.03};
    size_t nn = sizeof noises / sizeof *noises;
    double t0 = now_ms();

    print_header(&rule, trials, per_round);
    tally total[RULES] = {{0}};
    for (size_t ri = 0; ri < 2; ri++)
        for (size_t ni = 0; ni < nn; ni++)
            cell(seed * 1000003u + ri * 16 + ni, null_ratios[ri], noises[ni], trials, per_round,
                 &rule, 1, total);
    printf("  all          | old %6.2f %6.2f  | new %6.2f %6.2f\n\n",
           pct(total[OLD].win_at_stop, total[OLD].trials), pct(total[OLD].any_win, total[OLD].trials),
           pct(total[NEW].win_at_stop, total[NEW].trials), pct(total[NEW].any_win, total[NEW].trials));

    printf("POWER (%d trials per cell): %% won by A at the stop, %% won at the first look, mean "
           "samples per arm at the stop\n", power_trials);
    printf("  ratio noise  | rule  stop  first  smpl  | rule  stop  first  smpl\n");
    tally ptotal[RULES] = {{0}};
    for (size_t ri = 0; ri < sizeof power_ratios / sizeof *power_ratios; ri++)
        for (size_t ni = 0; ni < nn; ni++)
            cell(seed * 2000003u + ri * 16 + ni, power_ratios[ri], noises[ni], power_trials,
                 per_round, &rule, 0, ptotal);
    printf("\nsimulation: %.1f s\n", (now_ms() - t0) / 1000.0);

    double ms = time_full_decision(&rule);
    printf("one decision, 6 arms x 2 tests x 30 samples (30 comparisons, B=%zu): %.1f ms "
           "(%.2f x the 100 ms budget)\n", rule.boot_b, ms, ms / 100.0);
    return 0;
}
