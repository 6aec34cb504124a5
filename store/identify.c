/* identify.c: artifact identity (see identify.h). A model is known by the
 * SHA-256 of its bytes: one file by its own SHA-256, a split model
 * (NAME-00001-of-00003.gguf ...) by the SHA-256 over its shards' SHA-256 hex
 * digests in shard order, one per line (identity below). The store's path
 * cache maps (absolute path, size, mtime_ns, inode) to a file's hash, the
 * shard cache the same for each shard, so an unchanged file is never read
 * twice; the shards missing from it are hashed in parallel. Speaks to the
 * store only through store.h. Not for hashing (common/sha256.c), parsing GGUF
 * (common/gguf.c) or the shard rules (common/gguf_split.c). */
#include "store/identify.h"

#include "common/gguf_split.h"
#include "common/sha256.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the path cache keys on besides the path. */
typedef struct file_key {
    int64_t size;
    int64_t mtime_ns;
    int64_t inode;
} file_key;

/* One file of a model: its resolved path, key and (once known) hash. */
typedef struct shard {
    char *abs;
    file_key k;
    char sha[LVD_SHA256_HEX_LEN + 1];
    int known;
} shard;

/* A model's files in order: one, or every shard of a split model. */
typedef struct model {
    shard *v;
    size_t n;
    int64_t size;   /* all files together */
} model;

static int stat_key(const char *path, file_key *k, lvd_err *err)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return lvd_errf(err, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return lvd_errf(err, "%s: not a regular file", path);
    k->size = (int64_t)sb.st_size;
    k->mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
    k->inode = (int64_t)sb.st_ino;
    return 0;
}

static void model_free(model *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].abs);
    free(m->v);
    memset(m, 0, sizeof *m);
}

/* The files path names (gguf_split_files: shards are found by name, from the
 * path as given, as llama.cpp finds them), each resolved and stat'ed. */
static int model_resolve(const char *path, model *m, lvd_err *err)
{
    memset(m, 0, sizeof *m);
    char **files;
    size_t n;
    if (gguf_split_files(path, &files, &n, err) != 0)
        return -1;
    m->v = lvd_xcalloc(n, sizeof *m->v);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        shard *sh = &m->v[m->n];
        sh->abs = realpath(files[i], NULL);
        if (!sh->abs) {
            rc = lvd_errf(err, "%s: %s", files[i], strerror(errno));
            break;
        }
        m->n++;
        rc = stat_key(sh->abs, &sh->k, err);
        m->size += sh->k.size;
    }
    lvd_strv_free(files);
    if (rc != 0)
        model_free(m);
    return rc;
}

/* The artifact identity (docs/store.md, "Artifact identity"): a single file's
 * SHA-256; for a split model the SHA-256 of its shards' lowercase hex
 * digests in shard order, each followed by "\n". */
static void identity(const model *m, char sha[LVD_SHA256_HEX_LEN + 1])
{
    if (m->n == 1) {
        memcpy(sha, m->v[0].sha, LVD_SHA256_HEX_LEN + 1);
        return;
    }
    lvd_sha256 *h = lvd_sha256_new();
    for (size_t i = 0; i < m->n; i++) {
        lvd_sha256_update(h, m->v[i].sha, LVD_SHA256_HEX_LEN);
        lvd_sha256_update(h, "\n", 1);
    }
    lvd_sha256_final(h, sha);
}

/* Fills each file's hash the cache knows (the path cache for one file, the
 * shard cache for shards); the number known, or -1. */
static int cached_hashes(store *s, model *m, lvd_err *err)
{
    int known = 0;
    for (size_t i = 0; i < m->n; i++) {
        shard *sh = &m->v[i];
        int miss = m->n == 1
                       ? store_path_lookup(s, sh->abs, sh->k.size, sh->k.mtime_ns, sh->k.inode, sh->sha, err)
                       : store_shard_lookup(s, sh->abs, sh->k.size, sh->k.mtime_ns, sh->k.inode, sh->sha, err);
        if (miss < 0)
            return -1;
        sh->known = !miss;
        known += !miss;
    }
    return known;
}

/* Hashes the files whose hash is not known yet, in parallel, and checks that
 * none changed meanwhile (else a hash would be cached under a key that does
 * not describe the bytes hashed). *hashed is set when any was read. */
static int hash_missing(model *m, int *hashed, lvd_err *err)
{
    char **paths = lvd_xcalloc(m->n, sizeof *paths);
    size_t *which = lvd_xcalloc(m->n, sizeof *which), k = 0;
    for (size_t i = 0; i < m->n; i++)
        if (!m->v[i].known) {
            which[k] = i;
            paths[k++] = m->v[i].abs;
        }
    char(*hex)[LVD_SHA256_HEX_LEN + 1] = lvd_xcalloc(k ? k : 1, sizeof *hex);
    uint64_t *bytes = lvd_xcalloc(k ? k : 1, sizeof *bytes);
    int rc = k ? lvd_sha256_files(paths, k, 0, hex, bytes, err) : 0;
    for (size_t j = 0; j < k && rc == 0; j++) {
        shard *sh = &m->v[which[j]];
        file_key after;
        if (stat_key(sh->abs, &after, err) != 0)
            rc = -1;
        else if (bytes[j] != (uint64_t)sh->k.size || memcmp(&after, &sh->k, sizeof after) != 0)
            rc = lvd_errf(err, "%s: the file changed while it was being hashed; try again", sh->abs);
        memcpy(sh->sha, hex[j], sizeof hex[j]);
        sh->known = 1;
    }
    if (k && hashed)
        *hashed = 1;
    free(paths);
    free(which);
    free(hex);
    free(bytes);
    return rc;
}

/* Records the artifact and the cache entries of its files together, then
 * reads the artifact back as the store now holds it. */
static int record(store *s, const model *m, const char *sha, const gguf_shape *shape,
                  store_artifact *out, lvd_err *err)
{
    store_artifact a = {.size = m->size, .shape = *shape, .created_at = lvd_now(),
                        .last_path = m->v[0].abs};
    memcpy(a.sha256, sha, LVD_SHA256_HEX_LEN + 1);
    if (store_begin(s, err) != 0)
        return -1;
    int rc = store_artifact_put(s, &a, err);
    for (size_t i = 0; i < m->n && rc == 0; i++) {
        const shard *sh = &m->v[i];
        rc = m->n == 1 ? store_path_put(s, sh->abs, sh->k.size, sh->k.mtime_ns, sh->k.inode, sha, err)
                       : store_shard_put(s, sh->abs, sh->k.size, sh->k.mtime_ns, sh->k.inode, sh->sha, sha,
                                         (unsigned)i + 1, err);
    }
    if (rc != 0 || store_commit(s, err) != 0) {
        store_rollback(s);
        return -1;
    }
    rc = store_artifact_get(s, sha, out, err);
    if (rc == 1)
        return lvd_errf(err, "%s: artifact %s vanished from the store", store_path(s), sha);
    return rc;
}

/* Looks the model's files up in the caches: 0 with out filled when the
 * caches know every file and the artifact has a shape (or allow_non_gguf), 1
 * when they do not (the hashes known are kept in m), -1 on error. */
static int lookup(store *s, model *m, int allow_non_gguf, store_artifact *out, lvd_err *err)
{
    int known = cached_hashes(s, m, err);
    if (known < 0)
        return -1;
    if ((size_t)known < m->n)
        return 1;
    char sha[LVD_SHA256_HEX_LEN + 1];
    identity(m, sha);
    int none = store_artifact_get(s, sha, out, err);
    if (none < 0)
        return -1;
    if (!none && (out->shape.known || allow_non_gguf))
        return 0; /* the caches answered: no file was opened */
    /* known bytes, no shape yet (e.g. imported by hash) */
    store_artifact_free(out);
    return 1;
}

/* The model's shape over every file; a single file that is not GGUF gets an
 * unknown shape when allow_non_gguf (a split model must be GGUF). */
static int read_shape(const model *m, int allow_non_gguf, gguf_shape *shape, lvd_err *err);

/* A shape the store answered holds no compute-graph widths and no per-block
 * KV layout (gguf_shape.graph 0: they are not stored): they are read again
 * from the file's header (a few reads, never a hash) when it is still
 * there. A file that cannot be read keeps the stored shape, which placement
 * then prices with the seed's compute constant. */
static void reread_graph(const model *m, store_artifact *a)
{
    gguf_shape fresh;
    lvd_err ignored;
    if (!a->shape.known || a->shape.graph || read_shape(m, 0, &fresh, &ignored) != 0 || !fresh.known)
        return;
    a->shape = fresh;
}

int store_identify_cached(store *s, const char *path, store_artifact *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    model m;
    if (model_resolve(path, &m, err) != 0)
        return -1;
    int rc = lookup(s, &m, 0, out, err);
    if (rc == 0)
        reread_graph(&m, out);
    model_free(&m);
    return rc;
}

static int read_shape(const model *m, int allow_non_gguf, gguf_shape *shape, lvd_err *err)
{
    char **files = lvd_xcalloc(m->n, sizeof *files);
    for (size_t i = 0; i < m->n; i++)
        files[i] = m->v[i].abs;
    int rc = gguf_read_split_shape(files, m->n, shape, err);
    free(files);
    if (rc != 0 && allow_non_gguf && m->n == 1) {
        memset(shape, 0, sizeof *shape);
        shape->file_type = -1;
        rc = 0;
    }
    return rc;
}

int store_identify(store *s, const char *path, int allow_non_gguf, store_artifact *out,
                   int *hashed, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (hashed)
        *hashed = 0;
    model m;
    if (model_resolve(path, &m, err) != 0)
        return -1;
    int rc = lookup(s, &m, allow_non_gguf, out, err);
    if (rc == 0)
        reread_graph(&m, out);
    if (rc == 1) {
        /* the shape first: files that are not a model fail before a long hash */
        gguf_shape shape;
        char sha[LVD_SHA256_HEX_LEN + 1];
        rc = read_shape(&m, allow_non_gguf, &shape, err);
        if (rc == 0)
            rc = hash_missing(&m, hashed, err);
        if (rc == 0) {
            identity(&m, sha);
            rc = record(s, &m, sha, &shape, out, err);
        }
        if (rc == 0 && shape.known)
            out->shape = shape; /* as read: with what the store does not keep */
    }
    if (rc != 0)
        store_artifact_free(out);
    model_free(&m);
    return rc;
}

int store_identify_bytes(const char *path, char sha[LVD_SHA256_HEX_LEN + 1], lvd_err *err)
{
    model m;
    if (model_resolve(path, &m, err) != 0)
        return -1;
    int rc = hash_missing(&m, NULL, err);
    if (rc == 0)
        identity(&m, sha);
    model_free(&m);
    return rc;
}
