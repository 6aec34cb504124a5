/* window.h: the runs an evidence page reads, once for every section: the
 * host's runs of the newest nights the page and its drift show, oldest
 * first, with their samples; each model's section is a view into them. So
 * the page's cost is its nights, read once, not the year behind them nor a
 * listing per section. Not for what the sections compute (model.c, hunt.c). */
#ifndef LVD_EV_WINDOW_H
#define LVD_EV_WINDOW_H

#include "common/types.h"
#include "common/util.h"

#include <stddef.h>
#include <stdint.h>

struct store;

typedef struct ev_window {
    lvd_run *v;             /* oldest first, results and samples loaded */
    size_t n;
    int64_t since;          /* the first night's start (0: every night) */
} ev_window;

/* Reads host's runs of its newest `nights` nights that have runs (store.h
 * store_run_nights_since) into *w. 0 or -1 (err). */
int ev_window_load(struct store *s, const char *host, size_t nights, ev_window *w, lvd_err *err);
/* The runs of model sha in its own newest `nights` nights: a view into w
 * (*owned 0: shallow copies, the window keeps their data) when they lie
 * inside it, else read apart (*owned 1: a model not measured lately; free
 * with store_run_list_free). Free a view with free(). 0 or -1 (err). */
int ev_window_model(struct store *s, const ev_window *w, const char *host, const char *sha, size_t nights,
                    lvd_run **out, size_t *n, int *owned, lvd_err *err);
void ev_window_free(ev_window *w);

#endif
