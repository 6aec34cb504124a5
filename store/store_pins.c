/* store_pins.c: the nightly pin decisions and the history of pinned builds.
 * Not for deciding promotion (select/pin.c) or writing the pin file (fetch/). */
#include "store/store_cols.h"
#include "store/store_docs.h"

#include <stdlib.h>
#include <string.h>

/* A pin decision's columns, in the order of the pin_decisions table's INSERT
 * and SELECT. */
#define DECISION_COL(FIELD, KIND) STORE_COL(lvd_pin_decision, FIELD, KIND, #FIELD, STORE_COL_RW)
static const store_col decision_cols[] = {
    STORE_COL(lvd_pin_decision, id, STORE_COL_I64, "id", STORE_COL_R),
    DECISION_COL(decided_at, STORE_COL_I64),
    DECISION_COL(pinned_build, STORE_COL_TEXT),
    DECISION_COL(candidate_build, STORE_COL_TEXT),
    DECISION_COL(decision, STORE_COL_TEXT),
    DECISION_COL(rule, STORE_COL_TEXT),
    DECISION_COL(details_json, STORE_COL_DOC),
};
#define N_DECISION_COLS LVD_ARRAY_LEN(decision_cols)

int store_pin_decision_put(store *s, lvd_pin_decision *d, lvd_err *err)
{
    if (d->decided_at == 0)
        d->decided_at = lvd_now();
    store_stmt *st;
    if (store_cols_insert(s, "pin_decisions", decision_cols, N_DECISION_COLS, d, &st, err))
        return -1;
    if (store_step_done(s, st, "cannot record pin decision", err))
        return -1;
    d->id = store_last_id(s);
    return 0;
}

static void col_decision(store_stmt *st, void *item)
{
    lvd_pin_decision *d = item;
    memset(d, 0, sizeof *d);
    store_cols_read(st, 0, decision_cols, N_DECISION_COLS, d);
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
    if (store_cols_select(s, "pin_decisions", decision_cols, N_DECISION_COLS,
                          " WHERE ?1 <= 0 OR decided_at >= (SELECT min(d) * 86400 FROM"
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
    if (store_cols_select(s, "pin_decisions", decision_cols, N_DECISION_COLS,
                          " WHERE pinned_build = ?1 AND candidate_build = ?2 ORDER BY decided_at DESC, id DESC LIMIT 1",
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

/* A pinned build: the pins table's row, written only. */
typedef struct pin_row {
    const char *build, *flavour, *sha256;
    int64_t pinned_at;
    const char *source;
} pin_row;

#define PIN_COL(FIELD, KIND) STORE_COL(pin_row, FIELD, KIND, #FIELD, STORE_COL_W)
static const store_col pin_cols[] = {
    PIN_COL(build, STORE_COL_TEXT),   PIN_COL(flavour, STORE_COL_TEXT),   PIN_COL(sha256, STORE_COL_TEXT),
    PIN_COL(pinned_at, STORE_COL_I64), PIN_COL(source, STORE_COL_TEXT),
};

int store_pin_record(store *s, const char *build, const char *flavour, const char *sha256,
                     const char *source, lvd_err *err)
{
    pin_row row = {.build = build, .flavour = flavour, .sha256 = sha256, .pinned_at = lvd_now(), .source = source};
    store_stmt *st;
    if (store_cols_insert(s, "pins", pin_cols, LVD_ARRAY_LEN(pin_cols), &row, &st, err))
        return -1;
    return store_step_done(s, st, "cannot record pin", err);
}
