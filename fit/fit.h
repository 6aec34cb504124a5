/* fit.h: lvd fit (man lvd-fit): per engine x
 * device x KV cache type pair (matched pairs), at the placement lvd select
 * would use (fit_place), the largest context that loads and runs one token,
 * found by loading (fit/search.h over fit/load.h) and recorded in the store
 * with the free memory, the placement and the engine's identity. Not for
 * option parsing (tools/lvd-fit.c) nor for using ceilings (fit/ceiling.h). */
#ifndef LVD_FIT_FIT_H
#define LVD_FIT_FIT_H

#include "common/types.h"
#include "common/util.h"
#include "engine/engines.h"
#include "store/store.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cJSON;

#define FIT_TIMEOUT_S_DEFAULT 300 /* one load's */

/* One KV cache type pair. */
typedef struct fit_pair {
    char type_k[16], type_v[16];
} fit_pair;

/* The pairs of -ctk and -ctv lists ("f16,q8_0"; NULL = "f16"): matched by
 * position; a list of one pairs with each of the other; lists of other
 * unequal lengths are an error. Types are checked (placement knows them). */
int fit_pairs_parse(const char *ctk, const char *ctv, fit_pair **out, size_t *n, lvd_err *err);

typedef struct fit_opts {
    const fit_pair *pairs;
    size_t n_pairs;
    int64_t max_ctx;       /* the top of the search; 0 = the model's training context */
    int timeout_ms;        /* per load */
    int record;            /* write each ceiling to the store */
    void (*progress)(void *arg, const char *line); /* one line per finished pair; NULL = none */
    void *progress_arg;
} fit_opts;

/* One engine x device x pair and what its search found. */
typedef struct fit_item {
    char *engine;
    char device[64];       /* selector, FIT_DEVICE_CPU for a CPU run */
    fit_pair pair;
    char placement[64];    /* fit_placement_key */
    int64_t ceiling;       /* -1 when the search failed (error says why) */
    int capped;
    int64_t max_ctx;
    int64_t predicted;     /* -1 unknown */
    int64_t free_mib;      /* -1 unknown */
    int probes;
    char *last_fail;       /* why the smallest load that failed did not fit; NULL */
    char *error;           /* why there is no ceiling; NULL */
    char *left_out;        /* the flags the build's --help does not list, left out of its
                              loads (engine/argv.h note); NULL: none */
} fit_item;

/* Searches every engine x device x pair of setup (its engines probed, its
 * model identified) into *items (free with fit_items_free). Engines that
 * cannot be searched (unknown probe, no llama-bench) get an item with error
 * set. 0, or -1 with err when the store failed (or the model's shape is
 * unknown and there is no max_ctx). */
int fit_run(engine_setup *setup, const fit_opts *o, fit_item **items, size_t *n, lvd_err *err);
void fit_items_free(fit_item *v, size_t n);

/* [{engine, device, ctk, ctv, ceiling, free_mib, probes, capped, max_ctx,
 * predicted, placement, last_fail, error[, left_out]}] (left_out only where
 * a flag was left out) */
struct cJSON *fit_items_json(const fit_item *v, size_t n);
/* The table lvd fit prints (report.c): one line per item, its ceiling or why
 * there is none. */
void fit_items_print(FILE *f, const fit_item *v, size_t n);
/* lvd fit's exit status: 0 every ceiling found, 5 some, 1 none. */
int fit_items_exit(const fit_item *v, size_t n);

#endif
