/* store_fitprints.c: llama.cpp's own memory figures for a model at one
 * setting (table fit_prints, schema 22), the cache lvd select reads
 * without spawning. Not for running llama-fit-params nor for parsing what
 * it printed (engine/fitprint.c), nor for using the figures (placement). */
#include "store/store_cols.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* A fit print's columns, in the order of the fit_prints table's INSERT and
 * SELECT: the engine, artifact, host, setting and device name the row (a
 * new one replaces the old one's figures); the device's figures are SQL
 * NULL without a device row (-1), the files "" when unknown (NULL). */
#define FITPRINT_COL(FIELD, KIND) STORE_COL(store_fitprint, FIELD, KIND, #FIELD, STORE_COL_RW)
#define FITPRINT_KEY(FIELD, KIND) STORE_COL(store_fitprint, FIELD, KIND, #FIELD, STORE_COL_RW | STORE_COL_KEY)
#define FITPRINT_DEV(FIELD) STORE_COL_OR(store_fitprint, FIELD, STORE_COL_I64_NULL, #FIELD, STORE_COL_RW, -1)
static const store_col fitprint_cols[] = {
    FITPRINT_KEY(engine_id, STORE_COL_I64),
    FITPRINT_KEY(artifact, STORE_COL_CHARS),
    FITPRINT_KEY(host, STORE_COL_CHARS),
    FITPRINT_KEY(ctx, STORE_COL_I64),
    FITPRINT_KEY(ubatch, STORE_COL_INT),
    FITPRINT_KEY(fa, STORE_COL_INT),
    FITPRINT_KEY(type_k, STORE_COL_CHARS),
    FITPRINT_KEY(type_v, STORE_COL_CHARS),
    FITPRINT_KEY(device, STORE_COL_CHARS),
    FITPRINT_DEV(dev_model),
    FITPRINT_DEV(dev_context),
    FITPRINT_DEV(dev_compute),
    FITPRINT_COL(host_model, STORE_COL_I64),
    FITPRINT_COL(host_context, STORE_COL_I64),
    FITPRINT_COL(host_compute, STORE_COL_I64),
    FITPRINT_COL(files, STORE_COL_TEXT_EMPTY),
    FITPRINT_COL(created_at, STORE_COL_I64),
};
#define N_FITPRINT_COLS LVD_ARRAY_LEN(fitprint_cols)

int store_fitprint_put(store *s, store_fitprint *f, lvd_err *err)
{
    if (f->created_at == 0)
        f->created_at = lvd_now();
    store_fitprint row = *f; /* its files borrowed */
    if (!row.host[0])
        snprintf(row.host, sizeof row.host, "%s", lvd_hostname());
    store_stmt *st;
    if (store_cols_upsert(s, "fit_prints", fitprint_cols, N_FITPRINT_COLS, &row, "", &st, err))
        return -1;
    return store_step_done(s, st, "cannot record llama-fit-params' figures", err);
}

static void col_fitprint(store_stmt *st, void *item)
{
    store_fitprint *f = item;
    memset(f, 0, sizeof *f);
    store_cols_read(st, 0, fitprint_cols, N_FITPRINT_COLS, f);
}

static void free_fitprint(void *item)
{
    store_fitprint *f = item;
    free(f->files);
    f->files = NULL;
}

int store_fitprint_list(store *s, const char *artifact, const char *host, store_fitprint **out, size_t *n,
                        lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_cols_select(s, "fit_prints", fitprint_cols, N_FITPRINT_COLS,
                          " WHERE artifact = ? AND host = ? ORDER BY created_at DESC", &st, err))
        return -1;
    store_bind_text(st, 1, artifact);
    store_bind_text(st, 2, host ? host : lvd_hostname());
    void *v;
    if (store_rows(s, st, sizeof **out, col_fitprint, free_fitprint, "cannot read llama-fit-params' figures", &v, n,
                   err))
        return -1;
    *out = v;
    return 0;
}

void store_fitprint_list_free(store_fitprint *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free_fitprint(&v[i]);
    free(v);
}
