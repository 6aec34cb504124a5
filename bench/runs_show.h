/* runs_show.h: lvd store runs: the runs of a store, one line per test with
 * its median t/s, or as JSON with every sample (runs_show.c). Not for
 * recording runs. */
#ifndef LVD_BENCH_RUNS_SHOW_H
#define LVD_BENCH_RUNS_SHOW_H

#include "store/store.h"

typedef struct bench_runs_filter {
    const char *engine;   /* an engine's name; NULL: every engine */
    const char *artifact; /* a model's sha256; NULL: every model */
    const char *host;     /* a host's runs, named by its engines (lvd_hostname_set); NULL: every host's */
    int limit;            /* the newest runs; 0: all */
    int json;
} bench_runs_filter;

/* Prints the runs f selects; an engine name the store does not know is
 * LVD_EXIT_USAGE, a store failure LVD_EXIT_STORE, each with tool's error line. */
int bench_runs_show(const char *tool, store *s, const bench_runs_filter *f);

#endif
