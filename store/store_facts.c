/* store_facts.c: the session_facts table (store/factsdb.h). Not for reading
 * the host (engine/hostfacts.c). */
#include "store/factsdb.h"
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

int store_facts_put(store *s, const char *session, const char *host, char *const *names,
                    char *const *values, size_t n, lvd_err *err)
{
    int64_t now = lvd_now();
    for (size_t i = 0; i < n; i++) {
        store_stmt *st;
        if (store_prepare(s,
                          "INSERT INTO session_facts (session, host, name, value, at)"
                          " VALUES (?, ?, ?, ?, ?) ON CONFLICT(session, name) DO UPDATE SET"
                          " host = excluded.host, value = excluded.value, at = excluded.at",
                          &st, err))
            return -1;
        store_bind_text(st, 1, session);
        store_bind_text(st, 2, host);
        store_bind_text(st, 3, names[i]);
        store_bind_text(st, 4, values[i]);
        store_bind_i64(st, 5, now);
        if (store_step_done(s, st, "cannot record a session fact", err))
            return -1;
    }
    return 0;
}

static void col_fact(store_stmt *st, void *item)
{
    store_fact *f = item;
    f->session = store_col_strdup(st, 0);
    f->host = store_col_strdup(st, 1);
    f->name = store_col_strdup(st, 2);
    f->value = store_col_strdup(st, 3);
    f->at = store_col_i64(st, 4);
}

static void free_fact(void *item)
{
    store_fact *f = item;
    free(f->session);
    free(f->host);
    free(f->name);
    free(f->value);
}

int store_facts_list(store *s, const char *host, store_fact **v, size_t *n, lvd_err *err)
{
    *v = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s,
                      "SELECT session, host, name, value, at FROM session_facts"
                      " WHERE CAST(?1 AS TEXT) IS NULL OR host = ?1 ORDER BY at, session, name",
                      &st, err))
        return -1;
    store_bind_text(st, 1, host);
    void *out;
    if (store_rows(s, st, sizeof **v, col_fact, free_fact, "cannot list session facts", &out, n, err))
        return -1;
    *v = out;
    return 0;
}

void store_facts_free(store_fact *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_fact(&v[i]);
    free(v);
}
