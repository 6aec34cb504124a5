/* drift.h: telling drift from builds in a history of nightly medians (pure).
 * A series is one (model, arm, test) on one host: per session, the median of
 * the kept samples of the oldest build measured that session (the pinned
 * one), with that build and the session's host facts (store/factsdb.h).
 * Change points come from stats/changepoint.h (a two-window test on
 * medians). A step where the build changed (the builds of the sessions just
 * before and after differ) is the build's, not drift; a step under the same
 * build is drift, reported with the facts that changed between those two
 * sessions: "tg128 on Vulkan0 -8.1 % [CI -9.0, -7.2] since 2026-11-12;
 * engine unchanged (b200); driver 560.35 -> 565.57". Not for reading the
 * store or rendering (evidence/hunt.c). */
#ifndef LVD_EV_DRIFT_H
#define LVD_EV_DRIFT_H

#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

typedef struct ev_drift_point {
    int64_t at;             /* the session's first run, epoch seconds */
    const char *session;
    const char *build;
    double median;
} ev_drift_point;

typedef struct ev_drift_fact {
    const char *session, *name, *value;
} ev_drift_fact;

typedef struct ev_drift_flag {
    char date[11];          /* the first session after the step (UTC) */
    int64_t at;
    double ratio, lo, hi;
    int by_build;           /* the build changed at the step: not drift */
    char *line;             /* the sentence the page shows */
} ev_drift_flag;

/* The change points of pts[0..n) (oldest first) for the series named label
 * ("tg128 on Vulkan0"), each attributed, appended to *v (grown). 0, or -1
 * with err for a median that is not > 0. */
int ev_drift_series(const char *label, const ev_drift_point *pts, size_t n, const ev_drift_fact *facts,
                    size_t n_facts, ev_drift_flag **v, size_t *n_v, lvd_err *err);
void ev_drift_flags_free(ev_drift_flag *v, size_t n);

#endif
