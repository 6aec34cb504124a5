/* explain.h: the explain lines of one selection, collected in one place:
 * each step of the pipeline (select.h: gather, decide, place) appends its
 * lines through sel_say, in the order a reader follows the choice, and the
 * render step hands the list to the result (sel_result.explain), which
 * `lvd select --explain` prints as '# ' lines and --json as "explain". Not for
 * wording what a step found (each step words its own lines). */
#ifndef LVD_SEL_EXPLAIN_H
#define LVD_SEL_EXPLAIN_H

#include <stddef.h>

typedef struct sel_explain {
    char **v;              /* one line each, no newline */
    size_t n;
} sel_explain;

/* Appends one line (printf format) to x. */
void sel_say(sel_explain *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void sel_explain_free(sel_explain *x);

#endif
