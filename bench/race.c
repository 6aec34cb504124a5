/* race.c: the racing rule (see race.h). */
#include "bench/race.h"

/* 1 when, in ranking r, arm's comparison with the leader is a leader win. */
static int lost_to_leader(const stats_ranking *r, size_t arm)
{
    if (!r || r->leader == STATS_NO_ARM || r->leader == arm)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        const stats_rank_entry *e = &r->v[i];
        if (e->arm == arm)
            return e->rank && e->has_vs_leader && e->vs_leader.outcome == STATS_WIN_B;
    }
    return 0;
}

int bench_race_out(const bench_session *s, size_t arm)
{
    if (s->st[arm].status != BENCH_ARM_ACTIVE)
        return 1;
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        const stats_ranking *r = bench_session_decider(s, t);
        if (r && lost_to_leader(r, arm))
            return 1;
    }
    return 0;
}
