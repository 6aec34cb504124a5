/* history.c: the history chart's points by night or by ISO week
 * (evidence/history.h). Pure. Not for drawing (svghist.c) nor for reading
 * the runs (model.c ev_history_build). */
#include "evidence/history.h"

#include "stats/stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long ev_day_of(const char *date)
{
    int y = 1970, m = 1, d = 1;
    if (sscanf(date, "%d-%d-%d", &y, &m, &d) != 3)
        return 0;
    /* days from the civil date (proleptic Gregorian), March-based years */
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    long yoe = y - era * 400;
    long doy = (153L * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void ev_day_date(long day, char out[11])
{
    long z = day + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    long doe = z - era * 146097;
    long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    long d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    long y = yoe + era * 400 + (m <= 2);
    char buf[64];
    snprintf(buf, sizeof buf, "%04ld-%02ld-%02ld", y, m, d);
    snprintf(out, 11, "%.10s", buf);
}

int ev_hist_weekly(const ev_model *m)
{
    if (m->n_dates < 2)
        return 0;
    return ev_day_of(m->dates[m->n_dates - 1]) - ev_day_of(m->dates[0]) > EV_HIST_DAILY_DAYS;
}

/* The Monday of day's ISO week (1970-01-01 was a Thursday). */
static long week_of(long day)
{
    long since_monday = ((day + 3) % 7 + 7) % 7;
    return day - since_monday;
}

/* One week's point from the nightly medians v[0..n) of days day[0..n). */
static void week_point(ev_hist_pt *p, long monday, double *v, const long *day, size_t n)
{
    memset(p, 0, sizeof *p);
    ev_day_date(monday, p->date);
    p->day = (double)(day[0] + day[n - 1]) / 2.0;
    qsort(v, n, sizeof *v, lvd_cmp_double);
    p->median = stats_median(v, n);
    p->lo = v[0];
    p->hi = v[n - 1];
    p->nights = n;
}

void ev_hist_points(const ev_point *hist, size_t nh, int weekly, ev_hist_pt **out, size_t *n)
{
    *out = lvd_xcalloc(nh ? nh : 1, sizeof **out);
    *n = 0;
    double *v = lvd_xcalloc(nh ? nh : 1, sizeof *v);
    long *day = lvd_xcalloc(nh ? nh : 1, sizeof *day);
    for (size_t k = 0, start = 0; k < nh; k++) {
        day[k] = ev_day_of(hist[k].date);
        v[k] = hist[k].median;
        if (!weekly) {
            ev_hist_pt *p = &(*out)[(*n)++];
            snprintf(p->date, sizeof p->date, "%s", hist[k].date);
            p->day = (double)day[k];
            p->median = p->lo = p->hi = v[k];
            p->nights = 1;
            continue;
        }
        int last = k + 1 == nh || week_of(ev_day_of(hist[k + 1].date)) != week_of(day[k]);
        if (last) {
            week_point(&(*out)[(*n)++], week_of(day[k]), v + start, day + start, k + 1 - start);
            start = k + 1;
        }
    }
    free(v);
    free(day);
}
