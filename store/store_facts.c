/* store_facts.c: the session_facts table (store/factsdb.h). Not for reading
 * the host (engine/hostfacts.c). */
#include "store/factsdb.h"
#include "store/store_cols.h"

#include <stdlib.h>
#include <string.h>

/* A fact's columns, in the order of the session_facts table's INSERT and
 * SELECT: the session and name name it (recorded again, the rest is
 * replaced). */
#define FACT_COL(FIELD, USE) STORE_COL(store_fact, FIELD, STORE_COL_TEXT, #FIELD, STORE_COL_RW | USE)
static const store_col fact_cols[] = {
    FACT_COL(session, STORE_COL_KEY),
    FACT_COL(host, 0),
    FACT_COL(name, STORE_COL_KEY),
    FACT_COL(value, 0),
    STORE_COL(store_fact, at, STORE_COL_I64, "at", STORE_COL_RW),
};
#define N_FACT_COLS LVD_ARRAY_LEN(fact_cols)

int store_facts_put(store *s, const char *session, const char *host, char *const *names,
                    char *const *values, size_t n, lvd_err *err)
{
    int64_t now = lvd_now();
    for (size_t i = 0; i < n; i++) {
        /* borrowed */
        store_fact f = {.session = (char *)session, .host = (char *)host, .name = names[i], .value = values[i],
                        .at = now};
        store_stmt *st;
        if (store_cols_upsert(s, "session_facts", fact_cols, N_FACT_COLS, &f, "", &st, err))
            return -1;
        if (store_step_done(s, st, "cannot record a session fact", err))
            return -1;
    }
    return 0;
}

static void col_fact(store_stmt *st, void *item)
{
    store_cols_read(st, 0, fact_cols, N_FACT_COLS, item);
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
    if (store_cols_select(s, "session_facts", fact_cols, N_FACT_COLS,
                          " WHERE CAST(?1 AS TEXT) IS NULL OR host = ?1 ORDER BY at, session, name", &st, err))
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
