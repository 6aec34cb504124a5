/* race.c: the racing rule (see race.h). */
#include "bench/race.h"

#include "stats/stats.h"

/* 1 when, in ranking r, arm is ranked below the leader and out of contention
 * by the stats layer's rule (stats_out_of_contention of its sequential
 * interval against the leader). */
static int lost_to_leader(const stats_ranking *r, size_t arm)
{
    if (!r || r->leader == STATS_NO_ARM || r->leader == arm)
        return 0;
    const stats_rank_entry *e = stats_ranking_entry(r, arm);
    return e && e->rank && e->has_vs_leader && stats_out_of_contention(&e->vs_leader.seq);
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

/* 1 when arm leads one of the objective's deciding rankings. */
static int leads(const bench_session *s, size_t arm)
{
    for (size_t t = 0; t < s->o.inv.n_tests; t++) {
        const stats_ranking *r = bench_session_decider(s, t);
        if (r && r->leader == arm)
            return 1;
    }
    return 0;
}

void bench_race_filter(const bench_session *s, unsigned char *need)
{
    size_t n = s->plan->n_arms, racing = 0;
    for (size_t i = 0; i < n; i++)
        racing += need[i] && !leads(s, i) && !bench_race_out(s, i);
    for (size_t i = 0; i < n; i++)
        if (need[i] && (s->st[i].status != BENCH_ARM_ACTIVE || (racing && bench_race_out(s, i))))
            need[i] = 0;
}
