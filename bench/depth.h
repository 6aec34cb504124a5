/* depth.h: the context a service is launched with and the context depth its
 * arms are measured at, each rule in one function, shared by lvd bench (which
 * derives the depth), lvd select (which launches at the context the measured
 * depth came from) and the nightly. Not for running llama-bench (invoke.h).
 *
 * Rules:
 *   - serving context: -c/--ctx when given (0 = the model's trained context),
 *     else the context a measured (or --depth's deepest) depth D stands for,
 *     2 x D, else min(BENCH_CTX_DEFAULT, trained context); 0 (no -c, llama.cpp's
 *     own default) when the model's shape is unknown and nothing names one;
 *   - serving depth: half of the serving context (a conversation halfway
 *     through its window: the KV cache then holds ctx/2 tokens, and a pp512 or
 *     tg128 test on top still fits in ctx), unless --depth names the depths;
 *     none (0) when a test would not fit on top of it (ctx / 2 below the
 *     test's tokens) or under BENCH_DEPTH_MIN (nothing worth measuring);
 *     depths --depth names with an explicit -c must fit in it;
 *   - tests named at a depth (--tests tg128@d2048) are measured as named;
 *   - the tests at depth 0 stay beside the deep ones for comparison, so
 *     pp512, tg128 become pp512, tg128, pp512@dD, tg128@dD (llama-bench's own
 *     names for -d 0,D); the objective is decided at the deepest depth, the
 *     serving one (bench_tests_serving_depth);
 *   - the context that a measured serving depth D stands for: 2 x D (the
 *     inverse of the rule; lvd select launches with it when no --ctx is given). */
#ifndef LVD_BENCH_DEPTH_H
#define LVD_BENCH_DEPTH_H

#include "bench/invoke.h"
#include "common/gguf.h"
#include "placement/placement.h"

#include <stddef.h>
#include <stdint.h>

/* The context lvd select launches with when nothing names one (capped by the
 * model's trained context): placement's, the one constant both use. */
#define BENCH_CTX_DEFAULT PLACEMENT_CTX_DEFAULT
/* Below this many tokens a depth is not measured (the depth-0 tests say it). */
#define BENCH_DEPTH_MIN 64

/* The serving context: asked >= 0 (-c; 0 = the trained context), else
 * depth > 0 (the serving depth measured or asked: 2 x depth), else the
 * default from shape (NULL or !known: unknown). See the rules above. */
uint32_t bench_serving_ctx(int64_t asked, int depth, const gguf_shape *shape);

/* 0 when the tests at their depths fit in ctx (n_depth + n_prompt + n_gen <=
 * ctx, ctx 0 = unknown: anything fits); -1 with err naming the test. */
int bench_tests_fit_ctx(const bench_test *tests, size_t n, uint32_t ctx, lvd_err *err);

/* The serving depth of a context for tests of up to tokens (n_prompt +
 * n_gen) tokens: ctx / 2, 0 when below BENCH_DEPTH_MIN or below tokens. */
int bench_depth_of_ctx(uint32_t ctx, int tokens);

/* The context a serving depth stands for: 2 x depth (0 for depth 0). */
uint32_t bench_ctx_of_depth(int depth);

/* The tests at each depth: tests[0..n) (depth 0) repeated for every depth of
 * depths[0..nd) in the order llama-bench prints them for -d D1,D2 (all the
 * tests at D1, then at D2), names with "@dD" for D > 0 (benchio_test_name).
 * Depths must be distinct, >= 0, and at most BENCH_MAX_TESTS tests result.
 * On success *tests is replaced (the old array freed). 0, or -1 with err. */
int bench_tests_at_depths(bench_test **tests, size_t *n, const int *depths, size_t nd, lvd_err *err);

/* The tests of lvd bench at their depths and the serving context, by the
 * rules above: asked_ctx (-c, -1 = not given), depths[0..nd) (--depth; nd 0
 * = 0 and the serving context's depth), shape (NULL: unknown). *tests is
 * replaced as bench_tests_at_depths does; *serving is the context placement
 * places for and lvd select launches with. 0, or -1 with err (a bad depth
 * list, too many tests, or with -c given a test that does not fit in it). */
int bench_tests_for_serving(bench_test **tests, size_t *n, const int *depths, size_t nd, int64_t asked_ctx,
                            const gguf_shape *shape, uint32_t *serving, lvd_err *err);

/* The serving depth of a test list: the deepest n_depth (0 when none). */
int bench_tests_serving_depth(const bench_test *tests, size_t n);

#endif
