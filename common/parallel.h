/* parallel.h: independent jobs run on the machine's cores: a pool of
 * threads that each take the next index until none is left (this thread
 * works too, so a pool that cannot start a thread still finishes). Not for
 * jobs that share state without their own locking, nor for a job that
 * prints (the order of jobs is not kept; their results go in slots by
 * index). */
#ifndef LVD_PARALLEL_H
#define LVD_PARALLEL_H

#include <stddef.h>

typedef void (*lvd_job_fn)(size_t i, void *ctx);

/* The threads a pool of n jobs gets: max_threads (0: one per online core,
 * at most 64), never more than n. */
unsigned lvd_parallel_threads(size_t n, unsigned max_threads);
/* Runs fn(i, ctx) once for every i in [0, n) on lvd_parallel_threads(n,
 * max_threads) threads; returns when every job is done. */
void lvd_parallel_for(size_t n, unsigned max_threads, lvd_job_fn fn, void *ctx);

#endif
