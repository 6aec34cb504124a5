/* remeasure.h: the nightly's lvd bench command lines: the night's bench of
 * each model, and, with the bench budget the night left, the re-measurement
 * of the comparisons the newest pin decision called inconclusive (lvd pin:
 * not free of regression, not shown slower: the CI is too wide) on both
 * builds' engines, so that the next lvd pin has the samples to decide. Not
 * for running them (nightly.c runs each as a step). */
#ifndef LVD_NIGHT_REMEASURE_H
#define LVD_NIGHT_REMEASURE_H

#include "nightly/config.h"

#include <stddef.h>
#include <stdint.h>

/* lvd bench for model in session (resume: --resume) on tests, with budget
 * and min_samples, and the config's depth, context, samples, reps,
 * objective and run timeout. NULL-terminated, *n words (lvd_strv_free). */
char **night_bench_argv(const night_config *c, const char *tools_dir, const char *store_path, const char *model,
                        const char *session, int resume, const char *tests, const char *budget,
                        size_t min_samples, size_t *n);

/* One re-measurement: an lvd bench command line. */
typedef struct night_remeasure {
    char **argv;               /* NULL-terminated */
    size_t n;
    char *what;                /* "tg128 on cpu, model 973978067daa, ngl 99" for the step's name */
    int timeout_s;
} night_remeasure;

/* The re-measurements the newest pin decision asks for: when its rule is
 * "inconclusive: ...", one per inconclusive comparison's arm (its model as
 * the store last saw it, when that is one of the config's models), on the
 * pinned and the candidate engine, the arm's parameters, that test, twice
 * the kept samples of its larger side (at most max_samples), in session
 * SESSION-more, budget_s shared between them. None (0) when the decision is
 * not inconclusive or budget_s is under a minute. */
size_t night_remeasures(const night_config *c, const char *tools_dir, const char *store_path, const char *session,
                        int64_t budget_s, night_remeasure **out);
void night_remeasures_free(night_remeasure *v, size_t n);

#endif
