/* session.c: the session's state read and made (session.h): the names of
 * its stops and arm states, which tests decide, an arm's empty state. Not
 * the loop (runner.c). */
#include "bench/session.h"

#include "bench/depth.h"
#include "bench/energy.h"
#include "common/util.h"

#include <stdlib.h>
#include <string.h>

const char *bench_stop_name(bench_stop stop)
{
    switch (stop) {
    case BENCH_STOP_SETTLED: return "settled";
    case BENCH_STOP_MAX_SAMPLES: return "max-samples";
    case BENCH_STOP_BUDGET: return "budget";
    case BENCH_STOP_NOTHING: return "nothing-measured";
    case BENCH_STOP_MAX_ROUNDS: return "max-rounds";
    case BENCH_STOP_NOT_WORTH: return "not-worth-a-look";
    }
    return "?";
}

const char *bench_arm_status_name(bench_arm_status st)
{
    switch (st) {
    case BENCH_ARM_ACTIVE: return "active";
    case BENCH_ARM_EXCLUDED: return "excluded";
    case BENCH_ARM_GPU_IGNORED: return "gpu_ignored";
    }
    return "?";
}

int bench_session_uses_test(const bench_session *s, size_t t)
{
    if (s->weighted)
        return t == s->w_tg || t == s->w_pp;
    const bench_test *x = &s->o.inv.tests[t];
    /* decided at the serving depth; the other depths are shown for comparison */
    return x->n_depth == bench_tests_serving_depth(s->o.inv.tests, s->o.inv.n_tests) &&
           stats_objective_uses(&s->o.objective, x->n_prompt, x->n_gen);
}

const stats_ranking *bench_session_decider(const bench_session *s, size_t t)
{
    if (!bench_session_uses_test(s, t))
        return NULL;
    return s->weighted ? &s->weighted_rank : &s->by_test[t];
}

void bench_arm_state_init(bench_arm_state *st, size_t n_tests)
{
    memset(st, 0, sizeof *st);
    st->series = lvd_xcalloc(n_tests ? n_tests : 1, sizeof *st->series);
    st->joules = lvd_xcalloc(n_tests ? n_tests : 1, sizeof *st->joules);
}
