/* factsdb.h: the session_facts table: per bench session, the host facts that
 * can change while the build does not (GPU driver, kernel, CPU governor,
 * power limit; engine/hostfacts.h reads them). Not for reading the host, nor
 * for deciding what a change means (stats/changepoint.h). */
#ifndef LVD_STORE_FACTSDB_H
#define LVD_STORE_FACTSDB_H

#include "store/store.h"

#include <stddef.h>
#include <stdint.h>

typedef struct store_fact {
    char *session, *host, *name, *value;
    int64_t at;
} store_fact;

/* Records names[i] = values[i] for session (replacing what it had). */
int store_facts_put(store *s, const char *session, const char *host, char *const *names,
                    char *const *values, size_t n, lvd_err *err);
/* Every fact of host (NULL: of every host), oldest first. */
int store_facts_list(store *s, const char *host, store_fact **v, size_t *n, lvd_err *err);
void store_facts_free(store_fact *v, size_t n);

#endif
