/* history.h: the history chart's points, shaped from an arm's nightly
 * medians (model.h ev_point) so the chart's size and legibility do not grow
 * with nights. The rule (docs/evidence.md, "The history charts"): a chart whose dates
 * span at most EV_HIST_DAILY_DAYS days (first to last night) shows every
 * night; a longer one shows one point per ISO week (Monday to Sunday, UTC)
 * and arm: the median of that week's nightly medians, with its spread, the
 * lowest and the highest nightly median of the week. Pure; drawing is
 * svghist.c. */
#ifndef LVD_EV_HISTORY_H
#define LVD_EV_HISTORY_H

#include "evidence/model.h"

#include <stddef.h>

#define EV_HIST_DAILY_DAYS 28

typedef struct ev_hist_pt {
    double day;             /* x: days since 1970-01-01 (a week: the middle of its nights) */
    char date[11];          /* the night, or the week's Monday */
    double median, lo, hi;  /* lo = hi = median for a night */
    size_t nights;          /* nights pooled */
} ev_hist_pt;

/* Days since 1970-01-01 of "YYYY-MM-DD" (UTC), and back. */
long ev_day_of(const char *date);
void ev_day_date(long day, char out[11]);

/* Whether m's history is shown by week (its dates span more than
 * EV_HIST_DAILY_DAYS days). */
int ev_hist_weekly(const ev_model *m);

/* The points of a history hist[0..nh) (an arm's, oldest first), by night
 * or by week (weekly); *out is allocated (free it), *n set. */
void ev_hist_points(const ev_point *hist, size_t nh, int weekly, ev_hist_pt **out, size_t *n);

#endif
