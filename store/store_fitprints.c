/* store_fitprints.c: llama.cpp's own memory figures for a model at one
 * setting (table fit_prints, schema 22), the cache lvd select reads
 * without spawning. Not for running llama-fit-params nor for parsing what
 * it printed (engine/fitprint.c), nor for using the figures (placement). */
#include "store/store_internal.h"

#include <stdlib.h>
#include <string.h>

#define FITPRINT_COLS                                                                                          \
    "engine_id, artifact, host, ctx, ubatch, fa, type_k, type_v, device, dev_model, dev_context, dev_compute," \
    " host_model, host_context, host_compute, files, created_at"

int store_fitprint_put(store *s, store_fitprint *f, lvd_err *err)
{
    if (f->created_at == 0)
        f->created_at = lvd_now();
    store_stmt *st;
    if (store_prepare(s, "INSERT INTO fit_prints (" FITPRINT_COLS ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                         " ?, ?, ?, ?, ?) ON CONFLICT(engine_id, artifact, host, ctx, ubatch, fa, type_k, type_v,"
                         " device) DO UPDATE SET dev_model = excluded.dev_model, dev_context ="
                         " excluded.dev_context, dev_compute = excluded.dev_compute, host_model ="
                         " excluded.host_model, host_context = excluded.host_context, host_compute ="
                         " excluded.host_compute, files = excluded.files, created_at = excluded.created_at",
                      &st, err))
        return -1;
    int i = 1;
    store_bind_i64(st, i++, f->engine_id);
    store_bind_text(st, i++, f->artifact);
    store_bind_text(st, i++, f->host[0] ? f->host : lvd_hostname());
    store_bind_i64(st, i++, f->ctx);
    store_bind_int(st, i++, f->ubatch);
    store_bind_int(st, i++, f->fa);
    store_bind_text(st, i++, f->type_k);
    store_bind_text(st, i++, f->type_v);
    store_bind_text(st, i++, f->device);
    store_bind_i64_or_null(st, i++, f->dev_model, -1);
    store_bind_i64_or_null(st, i++, f->dev_context, -1);
    store_bind_i64_or_null(st, i++, f->dev_compute, -1);
    store_bind_i64(st, i++, f->host_model);
    store_bind_i64(st, i++, f->host_context);
    store_bind_i64(st, i++, f->host_compute);
    store_bind_text(st, i++, f->files ? f->files : "");
    store_bind_i64(st, i, f->created_at);
    return store_step_done(s, st, "cannot record llama-fit-params' figures", err);
}

static void col_fitprint(store_stmt *st, void *item)
{
    store_fitprint *f = item;
    memset(f, 0, sizeof *f);
    int c = 0;
    f->engine_id = store_col_i64(st, c++);
    store_col_copy(st, c++, f->artifact, sizeof f->artifact);
    store_col_copy(st, c++, f->host, sizeof f->host);
    f->ctx = store_col_i64(st, c++);
    f->ubatch = store_col_int(st, c++);
    f->fa = store_col_int(st, c++);
    store_col_copy(st, c++, f->type_k, sizeof f->type_k);
    store_col_copy(st, c++, f->type_v, sizeof f->type_v);
    store_col_copy(st, c++, f->device, sizeof f->device);
    f->dev_model = store_col_i64_or(st, c++, -1);
    f->dev_context = store_col_i64_or(st, c++, -1);
    f->dev_compute = store_col_i64_or(st, c++, -1);
    f->host_model = store_col_i64(st, c++);
    f->host_context = store_col_i64(st, c++);
    f->host_compute = store_col_i64(st, c++);
    f->files = store_col_strdup(st, c++);
    f->created_at = store_col_i64(st, c);
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
    if (store_prepare(s, "SELECT " FITPRINT_COLS " FROM fit_prints WHERE artifact = ? AND host = ?"
                         " ORDER BY created_at DESC",
                      &st, err))
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
