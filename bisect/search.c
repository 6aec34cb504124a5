/* search.c: the bisect's search and its midpoint rule (bisect/search.h).
 * Not for fetching or measuring (bisect/step.c). */
#include "bisect/search.h"

#include <string.h>

void bisect_interval(const bisect_mark *mark, size_t n, size_t *lo, size_t *hi)
{
    *hi = n ? n - 1 : 0;
    for (size_t i = 1; i + 1 < n; i++)
        if (mark[i] == BISECT_BAD) {
            *hi = i;
            break;
        }
    *lo = 0;
    for (size_t i = 1; i < *hi; i++)
        if (mark[i] == BISECT_GOOD)
            *lo = i;
}

size_t bisect_next(const bisect_mark *mark, size_t n)
{
    if (n < 3)
        return BISECT_NONE;
    size_t lo, hi;
    bisect_interval(mark, n, &lo, &hi);
    size_t mid = lo + (hi - lo) / 2;
    for (size_t d = 0; d < hi - lo; d++) {
        if (mid >= d && mid - d > lo && mark[mid - d] == BISECT_UNTESTED)
            return mid - d;
        if (mid + d < hi && mid + d > lo && mark[mid + d] == BISECT_UNTESTED)
            return mid + d;
    }
    return BISECT_NONE;
}

size_t bisect_max_steps(size_t n)
{
    size_t steps = 0;
    for (size_t span = 1; n > 2 && span < n - 1; span *= 2)
        steps++;
    return steps;
}

bisect_mark bisect_classify(const stats_comparison *vs_good, const stats_comparison *vs_bad,
                            const char **why)
{
    int slower_than_good = vs_good->outcome == STATS_WIN_B;
    int faster_than_bad = vs_bad->outcome == STATS_WIN_A;
    if (faster_than_bad && !slower_than_good) {
        *why = "faster than the bad build, not slower than the good one";
        return BISECT_GOOD;
    }
    if (slower_than_good && !faster_than_bad) {
        *why = "slower than the good build, not faster than the bad one";
        return BISECT_BAD;
    }
    *why = slower_than_good ? "between: slower than the good build and faster than the bad one"
                            : "undecided within the step's budget";
    return BISECT_SKIP;
}

static const char *const names[] = {"untested", "good", "bad", "skip"};

const char *bisect_mark_name(bisect_mark m)
{
    return (unsigned)m < 4 ? names[m] : "untested";
}

bisect_mark bisect_mark_parse(const char *s)
{
    for (int i = 1; i < 4; i++)
        if (s && !strcmp(s, names[i]))
            return (bisect_mark)i;
    return BISECT_UNTESTED;
}
