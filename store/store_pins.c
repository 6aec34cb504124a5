/* store_pins.c: the nightly pin decisions and the history of pinned builds.
 * Not for deciding promotion (select/pin.c) or writing the pin file (fetch/). */
#include "store/store_docs.h"

#include <stdlib.h>
#include <string.h>

int store_pin_decision_put(store *s, lvd_pin_decision *d, lvd_err *err)
{
    if (d->decided_at == 0)
        d->decided_at = lvd_now();
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO pin_decisions (decided_at, pinned_build, candidate_build, decision,"
                      " rule, details_json) VALUES (?, ?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    store_bind_i64(st, 1, d->decided_at);
    store_bind_text(st, 2, d->pinned_build);
    store_bind_text(st, 3, d->candidate_build);
    store_bind_text(st, 4, d->decision);
    store_bind_text(st, 5, d->rule);
    store_bind_doc(st, 6, d->details_json);
    if (store_step_done(s, st, "cannot record pin decision", err))
        return -1;
    d->id = store_last_id(s);
    return 0;
}

#define DECISION_COLUMNS "id, decided_at, pinned_build, candidate_build, decision, rule, details_json"

static void col_decision(store_stmt *st, void *item)
{
    lvd_pin_decision *d = item;
    memset(d, 0, sizeof *d);
    d->id = store_col_i64(st, 0);
    d->decided_at = store_col_i64(st, 1);
    d->pinned_build = store_col_strdup(st, 2);
    d->candidate_build = store_col_strdup(st, 3);
    d->decision = store_col_strdup(st, 4);
    d->rule = store_col_strdup(st, 5);
    d->details_json = store_col_doc(st, 6);
}

static void free_decision(void *d)
{
    lvd_pin_decision_free(d);
}

int store_pin_decision_list(store *s, int nights, lvd_pin_decision **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s,
                      "SELECT " DECISION_COLUMNS " FROM pin_decisions WHERE ?1 <= 0 OR decided_at >= (SELECT min(d) * 86400 FROM"
                      "   (SELECT DISTINCT decided_at / 86400 AS d FROM pin_decisions ORDER BY d DESC LIMIT ?1) AS n)"
                      " ORDER BY decided_at DESC, id DESC",
                      &st, err))
        return -1;
    store_bind_int(st, 1, nights > 0 ? nights : 0); /* 0: all (and a valid LIMIT) */
    void *v;
    if (store_rows(s, st, sizeof **out, col_decision, free_decision, "cannot list pin decisions", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

int store_pin_decision_latest(store *s, const char *pinned, const char *candidate, lvd_pin_decision *out,
                              lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    /* pin_decisions_builds (pinned_build, candidate_build, decided_at) serves it */
    if (store_prepare(s,
                      "SELECT " DECISION_COLUMNS " FROM pin_decisions WHERE pinned_build = ?1 AND candidate_build = ?2"
                      " ORDER BY decided_at DESC, id DESC LIMIT 1",
                      &st, err))
        return -1;
    store_bind_text(st, 1, pinned);
    store_bind_text(st, 2, candidate);
    void *v;
    size_t n;
    if (store_rows(s, st, sizeof *out, col_decision, free_decision, "cannot read pin decisions", &v, &n, err))
        return -1;
    if (n)
        *out = *(lvd_pin_decision *)v;
    free(v);
    return n ? 0 : 1;
}

void store_pin_decision_list_free(lvd_pin_decision *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lvd_pin_decision_free(&v[i]);
    free(v);
}

int store_pin_record(store *s, const char *build, const char *flavour, const char *sha256,
                     const char *source, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s, "INSERT INTO pins (build, flavour, sha256, pinned_at, source) VALUES (?, ?, ?, ?, ?)",
                      &st, err))
        return -1;
    store_bind_text(st, 1, build);
    store_bind_text(st, 2, flavour);
    store_bind_text(st, 3, sha256);
    store_bind_i64(st, 4, lvd_now());
    store_bind_text(st, 5, source);
    return store_step_done(s, st, "cannot record pin", err);
}
