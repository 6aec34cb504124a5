/* store_artifacts.c: artifacts (model files by SHA-256, with their GGUF shape),
 * the path cache that spares re-hashing an unchanged file, and its twin for
 * the shards of split models. Not for
 * deciding what to hash or reading GGUF files (store/identify.h, common/gguf.h). */
#include "store/store_cols.h"
#include "store/store_internal.h"

#include "common/sha256.h"

#include <stdlib.h>
#include <string.h>

/* The shape columns: each column's name, gguf_shape's field and its kind. */
#define SHAPE_COLUMNS(X)                                                                                    \
    X(name, name, CHARS) X(gguf_version, version, U32) X(arch, arch, CHARS) X(file_type, file_type, INT)   \
    X(n_block, n_block, U32) X(n_embd, n_embd, U32) X(n_head, n_head, U32) X(n_head_kv, n_head_kv, U32)    \
    X(head_dim_k, head_dim_k, U32) X(head_dim_v, head_dim_v, U32) X(n_ctx_train, n_ctx_train, U32)         \
    X(n_expert, n_expert, U32) X(n_expert_used, n_expert_used, U32) X(block_bytes, block_bytes, U64)       \
    X(expert_bytes, expert_bytes, U64) X(non_block_bytes, non_block_bytes, U64)                            \
    X(tensor_bytes, tensor_bytes, U64) X(n_tensors, n_tensors, U64) X(n_kv, n_kv, U64)                     \
    X(data_offset, data_offset, U64) X(embd_bytes, embd_bytes, U64)
#define SHAPE_NAME(c, f, k) ", " #c
#define SHAPE_PARAM(c, f, k) ", ?"
#define SHAPE_ENTRY(c, f, k) STORE_COL(store_artifact, shape.f, STORE_COL_##k, #c, STORE_COL_RW),
/* A stub (shape unknown) never overwrites a known shape. */
#define SHAPE_UPDATE(c, f, k) ", " #c " = CASE WHEN excluded.shape_known <> 0 THEN excluded." #c " ELSE artifacts." #c " END"
#define SHAPE_FIRST_COL 5 /* 0-based column of "name" in SELECT_ARTIFACT */

static const store_col shape_cols[] = {SHAPE_COLUMNS(SHAPE_ENTRY)};
#define SHAPE_N (sizeof shape_cols / sizeof shape_cols[0])

#define SELECT_ARTIFACT                                                                    \
    "SELECT sha256, size, created_at, last_path, shape_known" SHAPE_COLUMNS(SHAPE_NAME) " FROM artifacts"

/* An unknown shape is NULL in every shape column. */
static void bind_shape(store_stmt *st, int first, const store_artifact *a)
{
    if (a->shape.known) {
        store_cols_bind(st, first, shape_cols, SHAPE_N, a);
        return;
    }
    for (size_t i = 0; i < SHAPE_N; i++)
        store_bind_null(st, first + (int)i);
}

/* Older rows' NULL in a later column (embd_bytes) reads as 0. */
static void col_shape(store_stmt *st, int first, int known, store_artifact *a)
{
    memset(&a->shape, 0, sizeof a->shape);
    if (!known)
        return;
    store_cols_read(st, first, shape_cols, SHAPE_N, a);
    a->shape.known = 1;
}

static void col_artifact(store_stmt *st, void *item)
{
    store_artifact *a = item;
    memset(a, 0, sizeof *a);
    store_col_copy(st, 0, a->sha256, sizeof a->sha256);
    a->size = store_col_i64(st, 1);
    a->created_at = store_col_i64(st, 2);
    a->last_path = store_col_strdup(st, 3);
    col_shape(st, SHAPE_FIRST_COL, store_col_int(st, 4), a);
}

int store_artifact_put(store *s, const store_artifact *a, lvd_err *err)
{
    if (!lvd_sha256_valid(a->sha256))
        return lvd_errf(err, "%s: artifact '%s' is not a SHA-256 (64 lowercase hex digits)",
                        s->path, a->sha256);
    static const char sql[] =
        "INSERT INTO artifacts (sha256, size, created_at, last_path, shape_known"
        SHAPE_COLUMNS(SHAPE_NAME) ") VALUES (?, ?, ?, ?, ?" SHAPE_COLUMNS(SHAPE_PARAM) ")"
        " ON CONFLICT(sha256) DO UPDATE SET"
        " size = CASE WHEN excluded.size >= 0 THEN excluded.size ELSE artifacts.size END,"
        " last_path = coalesce(excluded.last_path, artifacts.last_path),"
        " shape_known = CASE WHEN excluded.shape_known > artifacts.shape_known THEN excluded.shape_known"
        " ELSE artifacts.shape_known END"
        SHAPE_COLUMNS(SHAPE_UPDATE);
    store_stmt *st;
    if (store_prepare(s, sql, &st, err))
        return -1;
    store_bind_text(st, 1, a->sha256);
    store_bind_i64(st, 2, a->size);
    store_bind_i64(st, 3, a->created_at ? a->created_at : lvd_now());
    store_bind_text(st, 4, a->last_path);
    store_bind_int(st, 5, a->shape.known ? 1 : 0);
    bind_shape(st, 6, a);
    return store_step_done(s, st, "cannot record artifact", err);
}

int store_artifact_get(store *s, const char *sha256, store_artifact *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    store_stmt *st;
    if (store_prepare(s, SELECT_ARTIFACT " WHERE sha256 = ?", &st, err))
        return -1;
    store_bind_text(st, 1, sha256);
    int rc = store_step(st);
    int ret = 1;
    if (rc == STORE_ROW) {
        col_artifact(st, out);
        ret = 0;
    } else if (rc != STORE_DONE) {
        ret = store_fail(s, err, "cannot read artifact");
    }
    store_finalize(st);
    return ret;
}

static void free_artifact(void *a)
{
    store_artifact_free(a);
}

int store_artifact_list(store *s, store_artifact **out, size_t *n, lvd_err *err)
{
    *out = NULL;
    *n = 0;
    store_stmt *st;
    if (store_prepare(s, SELECT_ARTIFACT " ORDER BY created_at, sha256", &st, err))
        return -1;
    void *v;
    if (store_rows(s, st, sizeof **out, col_artifact, free_artifact, "cannot list artifacts", &v, n, err))
        return -1;
    *out = v;
    return 0;
}

void store_artifact_free(store_artifact *a)
{
    if (!a)
        return;
    free(a->last_path);
    memset(a, 0, sizeof *a);
}

void store_artifact_list_free(store_artifact *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        store_artifact_free(&v[i]);
    free(v);
}

int store_path_lookup(store *s, const char *path, int64_t size, int64_t mtime_ns,
                      int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    return store_hash_cache_lookup(s, "artifact_paths", "the path cache", path, size, mtime_ns, inode, sha256,
                                   err);
}

int store_shard_lookup(store *s, const char *path, int64_t size, int64_t mtime_ns,
                       int64_t inode, char sha256[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    return store_hash_cache_lookup(s, "shard_paths", "the shard cache", path, size, mtime_ns, inode, sha256,
                                   err);
}

int store_path_put(store *s, const char *path, int64_t size, int64_t mtime_ns,
                   int64_t inode, const char *sha256, lvd_err *err)
{
    if (store_begin(s, err))
        return -1;
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO artifact_paths (path, size, mtime_ns, inode, sha256, hashed_at)"
                      " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET"
                      " size = excluded.size, mtime_ns = excluded.mtime_ns, inode = excluded.inode,"
                      " sha256 = excluded.sha256, hashed_at = excluded.hashed_at",
                      &st, err))
        goto fail;
    store_bind_hash_row(st, path, size, mtime_ns, inode, sha256);
    if (store_step_done(s, st, "cannot record path (record the artifact first)", err))
        goto fail;
    if (store_prepare(s, "UPDATE artifacts SET last_path = ? WHERE sha256 = ?", &st, err))
        goto fail;
    store_bind_text(st, 1, path);
    store_bind_text(st, 2, sha256);
    if (store_step_done(s, st, "cannot record path", err))
        goto fail;
    return store_commit(s, err);
fail:
    store_rollback(s);
    return -1;
}

int store_shard_put(store *s, const char *path, int64_t size, int64_t mtime_ns, int64_t inode,
                    const char *sha256, const char *artifact, unsigned shard_no, lvd_err *err)
{
    store_stmt *st;
    if (store_prepare(s,
                      "INSERT INTO shard_paths (path, size, mtime_ns, inode, sha256, hashed_at, artifact,"
                      " shard_no) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET"
                      " size = excluded.size, mtime_ns = excluded.mtime_ns, inode = excluded.inode,"
                      " sha256 = excluded.sha256, artifact = excluded.artifact,"
                      " shard_no = excluded.shard_no, hashed_at = excluded.hashed_at",
                      &st, err))
        return -1;
    store_bind_hash_row(st, path, size, mtime_ns, inode, sha256);
    store_bind_text(st, 7, artifact);
    store_bind_i64(st, 8, shard_no);
    return store_step_done(s, st, "cannot record a shard (record the artifact first)", err);
}
