/* seed.c: a resumed bench session's start (runner.h, "Resuming"): the runs an
 * earlier, interrupted process recorded under the same session id are folded
 * into the arms before the first round, so what was measured counts and is
 * not measured again (bench_seed_load reads them). Not for the session loop
 * (runner.c). */
#include "bench/runner.h"

#include <string.h>

/* The plan arm a recorded run belongs to (same engine, same arm key), or
 * (size_t)-1. */
static size_t arm_of(const bench_plan *plan, const lvd_run *run)
{
    for (size_t i = 0; i < plan->n_arms; i++)
        if (plan->arms[i].engine_id == run->engine_id && run->arm_key &&
            !strcmp(plan->arms[i].arm_key, run->arm_key))
            return i;
    return (size_t)-1;
}

int bench_seed_apply(bench_session *s, bench_absorb_fn absorb, lvd_err *err)
{
    (void)err;
    for (size_t i = 0; i < s->o.n_seed; i++) {
        const lvd_run *run = &s->o.seed[i];
        size_t arm = arm_of(s->plan, run);
        if (arm == (size_t)-1 || (run->reason && !strncmp(run->reason, "not run: ", 9))) {
            s->seed_ignored++; /* another plan's arm, or a skip record */
            continue;
        }
        int cut = run->reason && strstr(run->reason, "within the budget") != NULL;
        absorb(s, arm, run, cut);
        s->seeded++;
    }
    for (size_t i = 0; i < s->plan->n_arms; i++) /* each round runs a needed arm once */
        if (s->st[i].runs > s->rounds)
            s->rounds = s->st[i].runs;
    return 0;
}

int bench_seed_load(store *st, const char *artifact, const char *host, const char *session, lvd_run **runs,
                    size_t *n, lvd_err *err)
{
    store_run_filter f = {.artifact = artifact, .host = host, .session = session, .with_samples = 1};
    return store_run_list(st, &f, runs, n, err);
}
