/* bisectdb.h: the store's record of regression hunts (lvd bisect): one row
 * per hunt, keyed by what it hunts, and one per midpoint decided, written as
 * each is decided so that an interrupted hunt resumes. Not for searching or
 * measuring (bisect/), nor for the host facts (store/factsdb.h). */
#ifndef LVD_STORE_BISECTDB_H
#define LVD_STORE_BISECTDB_H

#include "store/store.h"

#include <stdint.h>

/* The session id prefix of a hunt's bench sessions ("bisect-12-b117"). Their
 * runs measure one test of three builds for the search only: store_run_list
 * leaves them out unless asked for the session by name, so no verdict, pin
 * decision or evidence table reads them. */
#define STORE_HUNT_SESSION_PREFIX "bisect-"

typedef struct store_bisect_step {
    char *build;
    char *verdict;        /* "good", "bad", "skip" */
    char *reason;         /* one line: why this verdict */
    char *commit;         /* the build's commit, NULL when unknown */
    char *session;        /* the bench session, NULL when not measured */
    double vs_good, vs_good_lo, vs_good_hi; /* midpoint / good with CI; NAN: not measured */
    double vs_bad, vs_bad_lo, vs_bad_hi;
    int downloaded;       /* the step downloaded the build */
    int64_t at;
} store_bisect_step;

typedef struct store_bisect {
    int64_t id;
    char *key;            /* host|artifact|flavour|test|arm|good|bad */
    char *host, *artifact, *flavour, *test, *arm, *good, *bad;
    int64_t started_at, finished_at; /* finished_at 0: not finished */
    char *last_good, *first_bad, *result_json;
} store_bisect;

/* Finds the hunt with b->key or records a new one from b's fields; sets
 * b->id, and *resumed to 1 when it was there (its steps are to be reused). */
int store_bisect_open(store *s, store_bisect *b, int *resumed, lvd_err *err);
/* Records (or replaces) one step of hunt id. */
int store_bisect_step_put(store *s, int64_t id, const store_bisect_step *st, lvd_err *err);
/* The steps of hunt id, in the order they were decided. */
int store_bisect_steps(store *s, int64_t id, store_bisect_step **v, size_t *n, lvd_err *err);
/* Marks hunt id finished with its result (last_good/first_bad may be NULL
 * when the hunt ended without a boundary). */
int store_bisect_finish(store *s, int64_t id, const char *last_good, const char *first_bad,
                        const char *result_json, lvd_err *err);
/* The newest finished hunt. 0, 1 when none, -1 on error. */
int store_bisect_latest(store *s, store_bisect *out, lvd_err *err);

/* Retires engine id: store_engine_list leaves it out (nothing measures it)
 * until store_engine_put registers it again; its runs stay. */
int store_engine_retire(store *s, int64_t id, lvd_err *err);

void store_bisect_free(store_bisect *b);
void store_bisect_step_free(store_bisect_step *st);
void store_bisect_steps_free(store_bisect_step *v, size_t n);

#endif
