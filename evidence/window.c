/* window.c: the runs an evidence page reads once (see window.h). */
#include "evidence/window.h"

#include "store/store.h"

#include <stdlib.h>
#include <string.h>

int ev_window_load(store *s, const char *host, size_t nights, ev_window *w, lvd_err *err)
{
    memset(w, 0, sizeof *w);
    if (store_run_nights_since(s, NULL, host, nights, &w->since, err))
        return -1;
    store_run_filter f = {.host = host, .since = w->since, .with_samples = 1};
    return store_run_list(s, &f, &w->v, &w->n, err);
}

int ev_window_model(store *s, const ev_window *w, const char *host, const char *sha, size_t nights,
                    lvd_run **out, size_t *n, int *owned, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    *owned = 0;
    store_run_filter f = {.artifact = sha, .host = host, .with_samples = 1};
    if (store_run_nights_since(s, sha, host, nights, &f.since, err))
        return -1;
    if (f.since < w->since) {
        *owned = 1;
        return store_run_list(s, &f, out, n, err);
    }
    *out = lvd_xcalloc(w->n ? w->n : 1, sizeof **out);
    for (size_t i = 0; i < w->n; i++)
        if (!strcmp(w->v[i].artifact, sha) && w->v[i].started_at >= f.since)
            (*out)[(*n)++] = w->v[i]; /* a shallow copy: the window keeps its data */
    return 0;
}

void ev_window_free(ev_window *w)
{
    store_run_list_free(w->v, w->n);
    memset(w, 0, sizeof *w);
}
