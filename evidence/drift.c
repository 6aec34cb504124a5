/* drift.c: change points of a series attributed to a build or to drift
 * (evidence/drift.h). Not for the store (evidence/hunt.c). */
#include "evidence/drift.h"

#include "evidence/model.h"
#include "stats/changepoint.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 8

static const char *fact_of(const ev_drift_fact *f, size_t n, const char *session, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].session, session) && !strcmp(f[i].name, name))
            return f[i].value;
    return NULL;
}

/* "driver 560.35 -> 565.57; kernel 6.1 -> 6.8", the facts that differ
 * between two sessions (both recorded), or "no recorded host fact changed". */
static void facts_changed(lvd_sb *sb, const ev_drift_fact *f, size_t n, const char *before, const char *after)
{
    size_t said = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(f[i].session, after))
            continue;
        const char *old = fact_of(f, n, before, f[i].name);
        if (old && strcmp(old, f[i].value))
            lvd_sb_addf(sb, "%s%s %s -> %s", said++ ? "; " : "", f[i].name, old, f[i].value);
    }
    if (!said)
        lvd_sb_adds(sb, "no recorded host fact changed");
}

int ev_drift_series(const char *label, const ev_drift_point *pts, size_t n, const ev_drift_fact *facts,
                    size_t n_facts, ev_drift_flag **v, size_t *n_v, lvd_err *err)
{
    double *x = lvd_xcalloc(n ? n : 1, sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = pts[i].median;
    stats_cp_opts o;
    stats_cp_default(&o);
    stats_changepoint cp[MAX_STEPS];
    size_t ncp = 0;
    int rc = stats_changepoints(x, n, &o, cp, MAX_STEPS, &ncp);
    free(x);
    if (rc)
        return lvd_errf(err, "%s: a median that is not a positive number", label);
    for (size_t i = 0; i < ncp; i++) {
        const ev_drift_point *b = &pts[cp[i].at - 1], *a = &pts[cp[i].at];
        *v = lvd_xrealloc(*v, (*n_v + 1) * sizeof **v);
        ev_drift_flag *f = &(*v)[(*n_v)++];
        memset(f, 0, sizeof *f);
        ev_date(a->at, f->date);
        f->at = a->at;
        f->ratio = cp[i].ratio, f->lo = cp[i].ci_lo, f->hi = cp[i].ci_hi;
        f->by_build = strcmp(b->build, a->build) != 0;
        lvd_sb sb = {0};
        lvd_sb_addf(&sb, "%s %+.1f %% [CI %+.1f, %+.1f] since %s; ", label, (f->ratio - 1) * 100,
                    (f->lo - 1) * 100, (f->hi - 1) * 100, f->date);
        if (f->by_build) {
            lvd_sb_addf(&sb, "build %s -> %s (the build's, not drift)", b->build, a->build);
        } else {
            lvd_sb_addf(&sb, "engine unchanged (%s); ", a->build);
            facts_changed(&sb, facts, n_facts, b->session, a->session);
        }
        f->line = lvd_xstrdup(lvd_sb_str(&sb));
        lvd_sb_free(&sb);
    }
    return 0;
}

void ev_drift_flags_free(ev_drift_flag *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].line);
    free(v);
}
