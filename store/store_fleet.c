/* store_fleet.c: the hosts a store holds (store/fleetdb.h). Not for the
 * fallback copy (store_fallback.c). */
#include "store/fleetdb.h"
#include "store/store_internal.h"

#include <stdlib.h>

static void col_host(store_stmt *st, void *item)
{
    *(char **)item = store_col_strdup(st, 0);
}

static void free_host(void *item)
{
    free(*(char **)item);
}

int store_fleet_hosts(store *s, char ***hosts, size_t *n, lvd_err *err)
{
    *hosts = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, "SELECT DISTINCT host FROM runs ORDER BY host", &st, err))
        return -1;
    void *v;
    if (store_rows(s, st, sizeof(char *), col_host, free_host, "cannot list hosts", &v, n, err))
        return -1;
    if (*n) {
        /* NULL-terminated, as lvd_strv_free expects */
        *hosts = lvd_xrealloc(v, (*n + 1) * sizeof(char *));
        (*hosts)[*n] = NULL;
    }
    return 0;
}
