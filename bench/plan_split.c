/* plan_split.c: the split arms of an engine that sees several distinct cards
 * (rules in plan.h, "several GPUs"): which devices make a split, its -ts from
 * their free memory, and one arm set per accepted split mode. Not for one
 * device's arms (plan.c) nor for the arithmetic of a split (placement/spread.h). */
#include "bench/kvpair.h"
#include "bench/plan_internal.h"

#include "engine/cards.h"
#include "engine/splitmodes.h"
#include "engine/visibility.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The split modes measured by default, in this order. */
static const int default_modes[] = {ENGINE_SM_LAYER, ENGINE_SM_ROW, ENGINE_SM_TENSOR};

/* Adds probe device d to set s (its selector, name, backend and memory). */
static void set_add(bench_split_set *s, const lvd_probe *pr, size_t d)
{
    const lvd_device *x = &pr->devices[d];
    lvd_device *y = &s->dev;
    if (s->n == 0) {
        memset(s, 0, sizeof *s);
        y->total_mib = y->free_mib = 0;
    }
    size_t l = strlen(y->selector), ln = strlen(y->name), lb = strlen(y->backend);
    snprintf(y->selector + l, sizeof y->selector - l, "%s%s", l ? "/" : "", x->selector);
    snprintf(y->name + ln, sizeof y->name - ln, "%s%s", ln ? " + " : "", x->name);
    if (!strstr(y->backend, x->backend))
        snprintf(y->backend + lb, sizeof y->backend - lb, "%s%s", lb ? "+" : "", x->backend);
    y->total_mib = x->total_mib < 0 || y->total_mib < 0 ? -1 : y->total_mib + x->total_mib;
    y->free_mib = x->free_mib < 0 || y->free_mib < 0 ? -1 : y->free_mib + x->free_mib;
    s->idx[s->n++] = d;
}

/* Prices s with the plan's first ub / KV pair (bench/kvpair.h) at the
 * serving context (place_ctx, else the plan's ctx). */
static void set_price(bench_split_set *s, const lvd_probe *pr, const bench_plan_opts *o)
{
    if (!o->shape || !o->shape->known || s->dev.free_mib < 0)
        return;
    int64_t free_mib[PLACEMENT_SPREAD_MAX];
    for (size_t i = 0; i < s->n; i++)
        free_mib[i] = pr->devices[s->idx[i]].free_mib;
    placement_place_in in;
    bench_plan_place_in(o, &in);
    lvd_err ignored = {{0}};
    s->priced = placement_spread(&in, free_mib, s->n, &s->spread, &ignored) == 0;
}

size_t bench_split_sets(const lvd_probe *pr, const bench_plan_opts *o, bench_split_set *out)
{
    size_t n_sets = 0, n = pr->n_devices;
    if (n < 2 || engine_cards_count(pr->devices, n) < 2)
        return 0;
    size_t *card = lvd_xcalloc(n, sizeof *card);
    engine_cards(pr->devices, n, NULL, card);
    for (size_t d = 0; d < n && n_sets < BENCH_SPLIT_SETS_MAX - 1; d++) {
        int first = 1, count = 0;
        for (size_t k = 0; k < n; k++)
            if (!strcmp(pr->devices[k].backend, pr->devices[d].backend)) {
                first = first && k >= d;
                count++;
            }
        if (!first || count < 2)
            continue;
        bench_split_set *s = &out[n_sets++];
        s->n = 0;
        for (size_t k = d; k < n && s->n < PLACEMENT_SPREAD_MAX; k++)
            if (!strcmp(pr->devices[k].backend, pr->devices[d].backend))
                set_add(s, pr, k);
    }
    if (n_sets == 0) { /* no backend sees two: one device per card, across backends */
        bench_split_set *s = &out[n_sets++];
        s->n = 0;
        for (size_t d = 0; d < n && s->n < PLACEMENT_SPREAD_MAX; d++)
            if (card[d] == d)
                set_add(s, pr, d);
    }
    free(card);
    for (size_t i = 0; i < n_sets; i++)
        set_price(&out[i], pr, o);
    return n_sets;
}

const char *bench_split_cover(const bench_split_set *sets, size_t n, size_t d)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < sets[i].n; k++)
            if (sets[i].idx[k] == d && sets[i].priced && sets[i].spread.fits)
                return sets[i].dev.selector;
    return NULL;
}

/* The visibility variables of every backend of the set, merged. */
static char *set_visibility(const bench_split_set *s, const lvd_probe *pr)
{
    char *vis = lvd_xstrdup("");
    for (size_t i = 0; i < s->n; i++) {
        char *one = engine_visibility_for_device(pr->env, pr->devices[s->idx[i]].backend);
        char merged[256];
        if (engine_env_merge(vis, one, merged, sizeof merged) == 0) {
            free(vis);
            vis = lvd_xstrdup(merged);
        }
        free(one);
    }
    return vis;
}

/* -ts as the user gave it, llama-server's "3,1" or llama-bench's "3/1", in
 * buf as llama-bench's. */
static const char *ts_slashed(const char *ts, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ts);
    for (char *c = buf; *c; c++)
        if (*c == ',')
            *c = '/';
    return buf;
}

/* 1 when mode (a name) is asked: in opts.sm, or by default and accepted. */
static int mode_asked(const bench_plan_opts *o, const char *mode)
{
    for (size_t i = 0; i < o->n_sm; i++)
        if (!strcmp(o->sm[i], mode))
            return 1;
    return 0;
}

static void set_arms(bench_plan *p, const lvd_engine *e, const char *binary, const lvd_probe *pr,
                     const bench_split_set *s, int accepted, const bench_plan_opts *o)
{
    if (s->priced && !s->spread.fits && !o->n_ngl) {
        bench_plan_add_skip(p, e, binary, s->dev.selector,
                            lvd_xasprintf("placement: %s", s->spread.reason));
        return;
    }
    bench_split sp = {.ubatch = s->priced && s->spread.ubatch != PLACEMENT_UBATCH_DEFAULT &&
                                        !o->n_ub ? s->spread.ubatch : 0,
                      .n = s->n};
    for (size_t i = 0; i < s->n; i++) {
        sp.selector[i] = pr->devices[s->idx[i]].selector;
        sp.free_mib[i] = pr->devices[s->idx[i]].free_mib;
    }
    char ts[64] = "";
    if (o->ts)
        ts_slashed(o->ts, ts, sizeof ts);
    else if (s->priced)
        snprintf(ts, sizeof ts, "%s", s->spread.tensor_split);
    sp.tensor_split = ts;
    char *vis = set_visibility(s, pr);
    for (size_t m = 0; m < LVD_ARRAY_LEN(default_modes); m++) {
        const char *mode = engine_split_mode_name(default_modes[m]);
        if (o->n_sm ? !mode_asked(o, mode) : !(accepted & default_modes[m]))
            continue;
        if (!(accepted & default_modes[m])) {
            bench_plan_add_skip(p, e, binary, s->dev.selector,
                                lvd_xasprintf("-sm %s: this llama-bench does not accept it "
                                              "(its --help lists no such split mode)", mode));
            continue;
        }
        sp.split_mode = mode;
        bench_plan_device_arms(p, e, binary, &s->dev, vis, o, &sp, NULL);
    }
    free(vis);
}

void bench_plan_split_arms(bench_plan *p, const lvd_engine *e, const char *binary,
                           const lvd_probe *pr, const bench_split_set *sets, size_t n,
                           int accepted, const bench_plan_opts *o)
{
    for (size_t i = 0; i < n; i++)
        set_arms(p, e, binary, pr, &sets[i], accepted, o);
}

int bench_split_opts_check(const bench_plan_opts *o, lvd_err *err)
{
    for (size_t i = 0; i < o->n_sm; i++) {
        int known = 0;
        for (size_t m = 0; m < LVD_ARRAY_LEN(default_modes); m++)
            known = known || !strcmp(o->sm[i], engine_split_mode_name(default_modes[m]));
        if (!known)
            return lvd_errf(err, "plan: -sm %s is not a split mode across devices "
                                 "(layer, row or tensor)", o->sm[i]);
    }
    if (!o->ts)
        return 0;
    size_t n;
    char ts[sizeof(((lvd_params *)0)->tensor_split)];
    char **parts = lvd_split(ts_slashed(o->ts, ts, sizeof ts), '/', &n);
    int bad = n < 2 || strlen(o->ts) >= sizeof ts;
    for (size_t i = 0; i < n && !bad; i++) {
        double v;
        bad = lvd_parse_double(parts[i], &v) != 0 || !(v >= 0);
    }
    lvd_strv_free(parts);
    if (bad)
        return lvd_errf(err, "plan: -ts '%s' is not two or more proportions separated by '/' "
                             "or ',' (e.g. 3/1)", o->ts);
    return 0;
}

int *bench_split_modes_probe(const lvd_engine *engines, const lvd_probe *probes, size_t n)
{
    int *modes = lvd_xcalloc(n ? n : 1, sizeof *modes);
    for (size_t i = 0; i < n; i++) {
        modes[i] = ENGINE_SM_ASSUMED;
        if (engine_cards_count(probes[i].devices, probes[i].n_devices) < 2)
            continue;
        engine_help help;
        engine_help_recorded(engines[i].dir ? engines[i].dir : ".", probes[i].flags, &help);
        modes[i] = engine_split_modes_of(&help);
        engine_help_free(&help);
    }
    return modes;
}
