/* search.h: the binary search of a bisect over the candidate builds, and the
 * rule that classifies one measured midpoint (pure: no I/O). The candidates
 * are ordered oldest first; index 0 is the known good build and n-1 the known
 * bad one. Like git bisect, a build that cannot be judged (unverifiable,
 * undecided) is skipped and the search goes on around it: the next build
 * tested is the untested one nearest the middle of the open interval.
 * Not for fetching or measuring (bisect/step.c). */
#ifndef LVD_BISECT_SEARCH_H
#define LVD_BISECT_SEARCH_H

#include "stats/stats.h"

#include <stddef.h>

#define BISECT_NONE ((size_t)-1)

typedef enum bisect_mark {
    BISECT_UNTESTED = 0,
    BISECT_GOOD,
    BISECT_BAD,
    BISECT_SKIP,
} bisect_mark;

/* The open interval: *lo the newest good build older than the oldest bad
 * one (*hi). mark[0] counts as good and mark[n-1] as bad whatever they say. */
void bisect_interval(const bisect_mark *mark, size_t n, size_t *lo, size_t *hi);

/* The next build to test: the untested one strictly inside the interval
 * nearest its middle (the older on a tie), or BISECT_NONE when none is left
 * (the boundary is found, or only skipped builds lie inside). */
size_t bisect_next(const bisect_mark *mark, size_t n);

/* The most tests a search over n candidates can take without skips:
 * ceil(log2(n - 1)) (0 for n <= 2). */
size_t bisect_max_steps(size_t n);

/* Classifies a midpoint from mid/good and mid/bad comparisons made under the
 * pin rule (stats_rule_pin): good when it is faster than the bad build and
 * not slower than the good one; bad when it is slower than the good build
 * and not faster than the bad one; else skip ("between": slower than good
 * and faster than bad; "undecided": neither comparison decided). *why is a
 * static phrase. */
bisect_mark bisect_classify(const stats_comparison *vs_good, const stats_comparison *vs_bad,
                            const char **why);

/* "untested", "good", "bad", "skip". */
const char *bisect_mark_name(bisect_mark m);
/* The inverse; BISECT_UNTESTED for anything else. */
bisect_mark bisect_mark_parse(const char *s);

#endif
