/* depth.c: the serving context and depth rules of depth.h. Pure. */
#include "bench/depth.h"

#include "benchio/benchout.h"

#include <stdlib.h>
#include <string.h>

uint32_t bench_serving_ctx(int64_t asked, int depth, const gguf_shape *shape)
{
    int known = shape && shape->known;
    uint32_t train = known ? shape->n_ctx_train : 0;
    if (asked > 0)
        return (uint32_t)asked;
    if (asked == 0)
        return train ? train : known ? BENCH_CTX_DEFAULT : 0;
    if (depth > 0)
        return bench_ctx_of_depth(depth);
    if (!known)
        return 0;
    return train && train < BENCH_CTX_DEFAULT ? train : BENCH_CTX_DEFAULT;
}

int bench_depth_of_ctx(uint32_t ctx, int tokens)
{
    uint32_t d = ctx / 2;
    return d < BENCH_DEPTH_MIN || (int64_t)(ctx - d) < (int64_t)tokens ? 0 : (int)d;
}

uint32_t bench_ctx_of_depth(int depth)
{
    return depth > 0 ? 2 * (uint32_t)depth : 0;
}

int bench_tests_at_depths(bench_test **tests, size_t *n, const int *depths, size_t nd, lvd_err *err)
{
    if (nd == 0)
        return 0;
    for (size_t i = 0; i < nd; i++) {
        if (depths[i] < 0)
            return lvd_errf(err, "depth: %d is negative", depths[i]);
        for (size_t k = 0; k < i; k++)
            if (depths[k] == depths[i])
                return lvd_errf(err, "depth: %d is given twice", depths[i]);
    }
    if (*n * nd > BENCH_MAX_TESTS)
        return lvd_errf(err, "depth: %zu tests at %zu depths make %zu, at most %d", *n, nd, *n * nd,
                        BENCH_MAX_TESTS);
    size_t total = *n * nd;
    bench_test *v = lvd_xcalloc(total ? total : 1, sizeof *v);
    for (size_t d = 0; d < nd; d++)
        for (size_t i = 0; i < *n; i++) {
            bench_test *t = &v[d * *n + i];
            *t = (*tests)[i];
            t->n_depth = depths[d];
            benchio_test_name(t->n_prompt, t->n_gen, t->n_depth, t->name, sizeof t->name);
        }
    free(*tests);
    *tests = v;
    *n *= nd;
    return 0;
}

int bench_tests_fit_ctx(const bench_test *tests, size_t n, uint32_t ctx, lvd_err *err)
{
    for (size_t i = 0; i < n && ctx; i++)
        if ((int64_t)tests[i].n_depth + tests[i].n_prompt + tests[i].n_gen > (int64_t)ctx)
            return lvd_errf(err, "depth: %s needs %d tokens of context, more than -c %u", tests[i].name,
                            tests[i].n_depth + tests[i].n_prompt + tests[i].n_gen, ctx);
    return 0;
}

int bench_tests_serving_depth(const bench_test *tests, size_t n)
{
    int d = 0;
    for (size_t i = 0; i < n; i++)
        if (tests[i].n_depth > d)
            d = tests[i].n_depth;
    return d;
}

int bench_tests_for_serving(bench_test **tests, size_t *n, const int *depths, size_t nd, int64_t asked_ctx,
                            const gguf_shape *shape, uint32_t *serving, lvd_err *err)
{
    int deepest = 0, tokens = 0;
    for (size_t i = 0; i < nd; i++)
        deepest = depths[i] > deepest ? depths[i] : deepest;
    int named = bench_tests_serving_depth(*tests, *n); /* tests named at a depth ("tg128@d2048") */
    if (named > 0 && nd == 0) {
        *serving = bench_serving_ctx(asked_ctx, named, shape);
        return asked_ctx > 0 ? bench_tests_fit_ctx(*tests, *n, *serving, err) : 0;
    }
    for (size_t i = 0; i < *n; i++)
        if ((*tests)[i].n_prompt + (*tests)[i].n_gen > tokens)
            tokens = (*tests)[i].n_prompt + (*tests)[i].n_gen;
    *serving = bench_serving_ctx(asked_ctx, deepest, shape);
    int derived[2] = {0, bench_depth_of_ctx(*serving, tokens)};
    const int *d = nd ? depths : derived;
    size_t count = nd ? nd : derived[1] > 0 ? 2 : 1;
    if (bench_tests_at_depths(tests, n, d, count, err))
        return -1;
    return asked_ctx > 0 ? bench_tests_fit_ctx(*tests, *n, *serving, err) : 0;
}
