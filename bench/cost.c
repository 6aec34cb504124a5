/* cost.c: invocation prices and the repetitions chosen from them (rules in
 * cost.h). Pure arithmetic: no clock, no processes. */
#include "bench/cost.h"

#include <math.h>

static void add_fixed(bench_cost *c, double fixed)
{
    c->invocations++;
    c->fixed_sum_ms += fixed;
    if (fixed > c->fixed_max_ms)
        c->fixed_max_ms = fixed;
}

static void add_reps(bench_arm_cost *a, int reps, double samples_ms, double longest_ms)
{
    a->reps += (size_t)reps;
    a->rep_sum_ms += samples_ms;
    double per = samples_ms / reps;
    if (per > a->rep_max_ms)
        a->rep_max_ms = per;
    if (longest_ms > a->sample_max_ms)
        a->sample_max_ms = longest_ms;
}

void bench_cost_observe(bench_cost *c, double wall_ms, double kept_ms)
{
    double fixed = wall_ms - kept_ms;
    if (!(fixed > 0))
        fixed = 0;
    if (c->seeds) { /* measured here: the carried-over prices go */
        c->seeds = c->invocations = 0;
        c->fixed_sum_ms = c->fixed_max_ms = 0;
    }
    add_fixed(c, fixed);
}

void bench_arm_cost_observe(bench_arm_cost *a, int reps, double samples_ms, double longest_ms)
{
    if (reps <= 0 || !(samples_ms > 0))
        return;
    if (a->seeds) {
        a->seeds = a->reps = 0;
        a->rep_sum_ms = a->rep_max_ms = a->sample_max_ms = 0;
    }
    add_reps(a, reps, samples_ms, longest_ms);
}

void bench_cost_seed(bench_cost *c, double fixed_ms, int64_t at)
{
    if (c->invocations > c->seeds || !(fixed_ms >= 0))
        return; /* measured here already */
    add_fixed(c, fixed_ms);
    c->seeds++;
    c->seed_at = at > c->seed_at ? at : c->seed_at;
    c->seed_fixed_ms = c->fixed_sum_ms / (double)c->seeds;
}

void bench_arm_cost_seed(bench_arm_cost *a, int reps, double samples_ms, double longest_ms)
{
    if (reps <= 0 || !(samples_ms > 0) || a->reps > a->seeds)
        return;
    add_reps(a, reps, samples_ms, longest_ms);
    a->seeds += (size_t)reps;
    a->seed_rep_ms = a->rep_sum_ms / (double)a->seeds;
}

double bench_cost_fixed_ms(const bench_cost *c)
{
    return c && c->invocations ? c->fixed_sum_ms / (double)c->invocations : -1;
}

double bench_arm_cost_rep_ms(const bench_arm_cost *a)
{
    return a->reps ? a->rep_sum_ms / (double)a->reps : -1;
}

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

int bench_cost_reps(const bench_cost *c, double rep_ms, size_t slots, int need, int lo, int hi)
{
    if (hi < lo)
        hi = lo;
    double fixed = bench_cost_fixed_ms(c);
    int r = need;
    if (fixed >= 0 && rep_ms > 0 && slots > 0) {
        double balance = ceil(fixed / ((double)slots * rep_ms));
        if (balance > r)
            r = balance > hi ? hi : (int)balance;
    }
    return clamp(r, lo, hi);
}

int bench_cost_fit(const bench_cost *c, double rep_max_ms, size_t instances, int reps, int64_t left_ms)
{
    if (!c || !c->invocations || !(rep_max_ms > 0) || instances == 0)
        return left_ms > 0 ? reps : 0;
    double room = (double)left_ms - c->fixed_max_ms;
    double fit = floor(room / ((double)instances * rep_max_ms));
    if (fit < 1)
        return 0;
    return fit < reps ? (int)fit : reps;
}
