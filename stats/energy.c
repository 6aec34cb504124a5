/* energy.c: tokens per joule from a result's energy (rules in energy.h).
 * Not for reading energy (energy/). */
#include "stats/energy.h"

#include <math.h>
#include <string.h>

/* Seconds of r's repetitions by llama-bench's own clock. */
static double timed_s(const lvd_result *r)
{
    double ns = 0;
    for (size_t k = 0; k < r->n; k++)
        ns += r->ns && r->ns[k] > 0 ? (double)r->ns[k] : 0;
    return ns / 1e9;
}

static double watts(const lvd_result *r, int net)
{
    const lvd_energy *e = &r->energy;
    if (!e->measured || !(e->joules > 0) || !(e->window_s > 0))
        return NAN;
    double j = e->joules;
    if (net && isfinite(e->idle_watts) && e->idle_watts > 0)
        j -= e->idle_watts * e->window_s;
    double s = timed_s(r);
    if (!(j > 0) || !(s > 0))
        return NAN;
    return j / s;
}

double stats_energy_watts(const lvd_result *r)
{
    return watts(r, 1);
}

double stats_energy_gross_watts(const lvd_result *r)
{
    return watts(r, 0);
}

static double sample_tpj(const lvd_result *r, size_t k, int net)
{
    if (k >= r->n || !stats_sample_kept(r, k))
        return NAN;
    double w = watts(r, net);
    return isfinite(w) ? r->ts[k] / w : NAN;
}

double stats_sample_tpj(const lvd_result *r, size_t k)
{
    return sample_tpj(r, k, 1);
}

double stats_sample_tpj_gross(const lvd_result *r, size_t k)
{
    return sample_tpj(r, k, 0);
}

double stats_sample_value(const lvd_result *r, size_t k, int per_joule)
{
    if (per_joule)
        return stats_sample_tpj(r, k);
    return k < r->n && stats_sample_kept(r, k) ? r->ts[k] : NAN;
}

void stats_energy_summary(const double *x, size_t n, const stats_rule *rule, stats_energy_stat *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return;
    out->has = 1;
    out->n = n;
    out->tpj = stats_median(x, n);
    const double one = 1.0;
    if (stats_bootstrap_ratio_ci(x, n, &one, 1, rule->boot_b, rule->level, rule->seed, &out->tpj_lo, &out->tpj_hi))
        out->tpj_lo = out->tpj_hi = out->tpj;
    out->jpt = 1.0 / out->tpj;
    out->jpt_lo = 1.0 / out->tpj_hi;
    out->jpt_hi = 1.0 / out->tpj_lo;
}
