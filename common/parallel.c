/* parallel.c: independent jobs on the machine's cores (see parallel.h). */
#include "common/parallel.h"

#include <pthread.h>
#include <unistd.h>

#define MAX_THREADS 64

typedef struct pool {
    size_t n, next;
    lvd_job_fn fn;
    void *ctx;
    pthread_mutex_t mu;
} pool;

/* Takes the next job until none is left. */
static void *pool_main(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        p->fn(i, p->ctx);
    }
}

unsigned lvd_parallel_threads(size_t n, unsigned max_threads)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned t = max_threads ? max_threads : cores > 0 ? (unsigned)cores : 1;
    if (t > MAX_THREADS)
        t = MAX_THREADS;
    return n < t ? (unsigned)n : t;
}

void lvd_parallel_for(size_t n, unsigned max_threads, lvd_job_fn fn, void *ctx)
{
    pool p = {.n = n, .fn = fn, .ctx = ctx};
    unsigned want = lvd_parallel_threads(n, max_threads), started = 0;
    if (want <= 1) { /* one job, or one core: no thread, no lock */
        for (size_t i = 0; i < n; i++)
            fn(i, ctx);
        return;
    }
    pthread_mutex_init(&p.mu, NULL);
    pthread_t tid[MAX_THREADS];
    while (started + 1 < want && pthread_create(&tid[started], NULL, pool_main, &p) == 0)
        started++;
    pool_main(&p);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.mu);
}
