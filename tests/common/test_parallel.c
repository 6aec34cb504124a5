/* test_parallel.c: independent jobs on the cores (common/parallel.h): every
 * index runs exactly once whatever the pool's size, a pool of one runs them
 * in order on this thread, and the pool is never larger than the jobs. */
#include "tests/support/testutil.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"

typedef struct seen {
    unsigned *runs;      /* per index: how often it ran */
    size_t *order;       /* the order the jobs ran in (a pool of one) */
    size_t n_order;
    pthread_t *by;       /* per index: the thread that ran it */
    pthread_mutex_t mu;
} seen;

static void job(size_t i, void *ctx)
{
    seen *s = ctx;
    s->runs[i]++; /* its own slot: no other job writes it */
    s->by[i] = pthread_self();
    pthread_mutex_lock(&s->mu);
    s->order[s->n_order++] = i;
    pthread_mutex_unlock(&s->mu);
}

static void run(size_t n, unsigned threads, seen *s)
{
    memset(s, 0, sizeof *s);
    s->runs = lvd_xcalloc(n + 1, sizeof *s->runs);
    s->order = lvd_xcalloc(n + 1, sizeof *s->order);
    s->by = lvd_xcalloc(n + 1, sizeof *s->by);
    pthread_mutex_init(&s->mu, NULL);
    lvd_parallel_for(n, threads, job, s);
    pthread_mutex_destroy(&s->mu);
}

static void seen_free(seen *s)
{
    free(s->runs);
    free(s->order);
    free(s->by);
}

static void test_each_once(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 7, 1000};
    static const unsigned pools[] = {0, 1, 2, 8};
    for (size_t a = 0; a < LVD_ARRAY_LEN(sizes); a++)
        for (size_t b = 0; b < LVD_ARRAY_LEN(pools); b++) {
            seen s;
            run(sizes[a], pools[b], &s);
            assert_int_equal(s.n_order, sizes[a]);
            for (size_t i = 0; i < sizes[a]; i++)
                if (s.runs[i] != 1)
                    fail_msg("%zu jobs on %u threads: job %zu ran %u times", sizes[a], pools[b], i, s.runs[i]);
            seen_free(&s);
        }
}

static void test_pool_of_one(void **state)
{
    (void)state;
    seen s;
    run(50, 1, &s);
    for (size_t i = 0; i < 50; i++) {
        assert_int_equal(s.order[i], i); /* in order */
        assert_true(pthread_equal(s.by[i], pthread_self()));
    }
    seen_free(&s);
}

static void test_pool_size(void **state)
{
    (void)state;
    assert_int_equal(lvd_parallel_threads(0, 8), 0);
    assert_int_equal(lvd_parallel_threads(3, 8), 3);
    assert_int_equal(lvd_parallel_threads(100, 8), 8);
    assert_int_equal(lvd_parallel_threads(1000, 500), 64);
    assert_true(lvd_parallel_threads(1000, 0) >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_once),
        cmocka_unit_test(test_pool_of_one),
        cmocka_unit_test(test_pool_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
