/* hunt.h: the evidence page's regression hunting: the newest lvd bisect's
 * culprit (shown under the pin decision, with its compare link) and the
 * drift flags of every (model, arm, test) history of this host
 * (evidence/drift.h), with a note when the newest pin decision's sessions
 * lie across a flagged change point. Loaded from the store (read only);
 * rendered as markdown. Not for the figures (drift.c) or the rest of the
 * page (load.c, markdown.c). */
#ifndef LVD_EV_HUNT_H
#define LVD_EV_HUNT_H

#include "common/types.h"
#include "common/util.h"
#include "evidence/drift.h"

#include <stddef.h>

struct store;

typedef struct ev_hunt {
    char *culprit;          /* the culprit's paragraph (markdown), NULL: no bisect */
    ev_drift_flag *flags;   /* by date */
    size_t n_flags;
    char *pin_note;         /* the newest pin decision against the drift flags, or NULL */
} ev_hunt;

/* The nights of runs the drift of a page of `nights` nights reads: those
 * and two change-point windows of nights before them (what a step at their
 * start is judged against). */
size_t ev_hunt_nights(size_t nights);
/* Loads host's hunt from s: the newest bisect's culprit and the drift of
 * runs[0..nr) (host's runs of ev_hunt_nights nights, oldest first, with
 * their samples, read once by the page for every section; the not-ok runs
 * are left out here). 0, or -1 with err. */
int ev_hunt_load(struct store *s, const char *host, const lvd_run *runs, size_t nr, ev_hunt *out, lvd_err *err);
void ev_hunt_free(ev_hunt *h);

/* Under the pin decision: the culprit and the pin note (nothing when neither). */
void ev_hunt_render_culprit(lvd_sb *sb, const ev_hunt *h);
/* The "Drift" section (none when nothing is flagged). */
void ev_hunt_render_drift(lvd_sb *sb, const ev_hunt *h);

#endif
