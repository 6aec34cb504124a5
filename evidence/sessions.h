/* sessions.h: the sessions of a list of runs, numbered, for the page's
 * sections that group runs by session (history.c, hunt.c). Not for reading
 * runs (window.h). */
#ifndef LVD_EV_SESSIONS_H
#define LVD_EV_SESSIONS_H

#include "common/types.h"

#include <stddef.h>

/* Numbers the sessions of runs[0..n) into id[0..n): runs of one session
 * (by name; a run without one is in the session "") share a number, 0 ..
 * count-1 in the order the sessions first appear among the runs. One sort:
 * n log n whatever order the runs come in. Returns the count. */
size_t ev_session_ids(const lvd_run *runs, size_t n, size_t *id);

#endif
