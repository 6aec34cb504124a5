/* sequential.c: the statistics behind wins that stay valid over repeated
 * looks: the alpha-spending schedule, Welch's interval on a contrast of mean
 * log throughputs at the level a look has spent, and the racing rule "out of
 * contention". The method, its error bound and its reference are in stats.h
 * ("Sequential wins"); the thresholds it is held against are stats_decide's.
 * Pure computation, no I/O. */
#include "stats/stats.h"

#include <math.h>
#include <string.h>

double stats_alpha_spend(double alpha, size_t look)
{
    if (look == 0)
        return 0.0;
    if (look == 1)
        return alpha * STATS_ALPHA_FIRST;
    double k = (double)(look - 1);
    return alpha * (1.0 - STATS_ALPHA_FIRST) * 6.0 / (M_PI * M_PI * k * k);
}

static void sequential_clear(stats_sequential *out, const stats_rule *rule)
{
    memset(out, 0, sizeof *out);
    out->look = rule->look;
    out->alpha_look = rule->m ? stats_alpha_spend(rule->alpha, rule->look) / (double)rule->m : NAN;
    out->log_ratio = out->se = out->df = out->lo = out->hi = NAN;
}

void stats_sequential_contrast(const stats_summary *const *s, const double *coef, size_t k,
                               const stats_rule *rule, stats_sequential *out)
{
    sequential_clear(out, rule);
    size_t n_min = (size_t)-1;
    for (size_t i = 0; i < k; i++)
        if (s[i]->n < n_min)
            n_min = s[i]->n;
    out->n_min = k ? n_min : 0;
    if (!k || n_min < rule->win_min_samples || n_min < 2 || !(out->alpha_look > 0))
        return;
    double est = 0, var = 0, df_den = 0;
    for (size_t i = 0; i < k; i++) {
        if (!isfinite(s[i]->log_mean) || !isfinite(s[i]->log_sd))
            return; /* a series that is not all positive and finite */
        double v = coef[i] * coef[i] * s[i]->log_sd * s[i]->log_sd / (double)s[i]->n;
        est += coef[i] * s[i]->log_mean;
        var += v;
        df_den += v * v / (double)(s[i]->n - 1);
    }
    out->log_ratio = est;
    out->se = sqrt(var);
    if (var == 0) {
        /* every series constant: the contrast is known exactly */
        out->df = INFINITY;
        out->lo = out->hi = exp(est);
        return;
    }
    out->df = var * var / df_den; /* Welch-Satterthwaite */
    double q = stats_t_isf(out->alpha_look / 2.0, out->df);
    out->lo = exp(est - q * out->se);
    out->hi = exp(est + q * out->se);
}

void stats_sequential_interval(const stats_summary *a, const stats_summary *b,
                               const stats_rule *rule, stats_sequential *out)
{
    const stats_summary *s[2] = {a, b};
    static const double coef[2] = {1.0, -1.0};
    stats_sequential_contrast(s, coef, 2, rule, out);
}

int stats_out_of_contention(const stats_sequential *arm_vs_leader)
{
    return arm_vs_leader->look > 0 && isfinite(arm_vs_leader->hi) && arm_vs_leader->hi < 1.0;
}
