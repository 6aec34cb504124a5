/* rung.h: the next placement rung in the same session. After
 * each round, an arm whose load failed for memory (bench/alloc.h: the run's
 * reason is a placement failure) is excluded at once (the same load fails
 * the same way) and, when the ladder has a rung below what it was priced at
 * (placement/nextrung.h), a new arm with that rung's -ngl / -ncmoe / -ub joins
 * the session; the report says which arm replaced which (plan notes). Its
 * own load may fail again: then the rung below that, and so on until one
 * loads or the ladder has only -ngl 0 left. Not for the round loop
 * (runner.c) nor for the ladder (placement/). */
#ifndef LVD_BENCH_RUNG_H
#define LVD_BENCH_RUNG_H

#include "bench/session.h"

/* Adds the next rung of every arm whose last failure was for memory and
 * that has not been replaced yet (rules above), growing s->plan, the arm
 * states and the loop's per-arm buffers *need and *solo (one byte per arm;
 * the new arms' bytes are 0). Nothing is added when s->o.plan_opts is NULL
 * or the model's shape is unknown. Returns the plan's arm count. */
size_t bench_session_next_rungs(bench_session *s, unsigned char **need, unsigned char **solo);

#endif
