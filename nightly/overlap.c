/* overlap.c: runs of a night that shared their time with another session's
 * (see overlap.h). */
#include "nightly/overlap.h"

#include "store/store.h"

#include <stdio.h>
#include <string.h>

static int64_t end_of(const lvd_run *r)
{
    return r->started_at + (r->wall_ms + 999) / 1000;
}

/* Seconds the spans of a and b share (0 when none). */
static int64_t shared_s(const lvd_run *a, const lvd_run *b)
{
    int64_t lo = a->started_at > b->started_at ? a->started_at : b->started_at;
    int64_t ea = end_of(a), eb = end_of(b);
    int64_t hi = ea < eb ? ea : eb;
    return hi > lo ? hi - lo : 0;
}

static int ran(const lvd_run *r)
{
    return r->wall_ms > 0 && strcmp(r->source, "import"); /* skips have no wall; imports ran elsewhere */
}

int night_overlaps(const char *store_path, const char *session, const char *host, int64_t since,
                   char *msg, size_t len, lvd_err *err)
{
    store *s;
    if (store_open(store_path, STORE_OPEN_READONLY, &s, err))
        return -1;
    store_run_filter f = {.host = host, .since = since};
    lvd_run *v = NULL;
    size_t n = 0;
    int rc = store_run_list(s, &f, &v, &n, err);
    store_close(s);
    if (rc)
        return -1;
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        const lvd_run *a = &v[i];
        if (!ran(a) || !a->session || strcmp(a->session, session))
            continue;
        for (size_t k = 0; k < n; k++) {
            const lvd_run *b = &v[k];
            if (!ran(b) || (b->session && !strcmp(b->session, session)) ||
                shared_s(a, b) <= NIGHT_OVERLAP_SLACK_S)
                continue;
            if (!found++ && msg)
                snprintf(msg, len, "run %lld of this night and run %lld of session %s ran at the same time "
                         "(%llds shared)", (long long)a->id, (long long)b->id, b->session ? b->session : "?",
                         (long long)shared_s(a, b));
            break;
        }
    }
    store_run_list_free(v, n);
    return found;
}
