/* identify.c: artifact identity (see identify.h). A model file is known by the
 * SHA-256 of its bytes; the store's path cache maps (absolute path, size,
 * mtime_ns, inode) to that hash so an unchanged file is never read twice.
 * Speaks to the store only through store.h. Not for hashing (common/sha256.c)
 * or parsing GGUF (common/gguf.c). */
#include "store/identify.h"

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

/* Hashes path and checks it did not change meanwhile (else the hash would be
 * cached under a key that does not describe the bytes hashed). */
static int hash_unchanged(const char *path, const file_key *k, char sha[LVD_SHA256_HEX_LEN + 1],
                          lvd_err *err)
{
    uint64_t bytes = 0;
    file_key after;
    if (lvd_sha256_file(path, sha, &bytes, err) != 0 || stat_key(path, &after, err) != 0)
        return -1;
    if (bytes != (uint64_t)k->size || memcmp(&after, k, sizeof after) != 0)
        return lvd_errf(err, "%s: the file changed while it was being hashed; try again", path);
    return 0;
}

/* Records the artifact and the path cache entry together, then reads the
 * artifact back as the store now holds it. */
static int record(store *s, const char *abs, const file_key *k, const char *sha,
                  const gguf_shape *shape, store_artifact *out, lvd_err *err)
{
    store_artifact a = {.size = k->size, .shape = *shape, .created_at = lvd_now(),
                        .last_path = (char *)abs};
    memcpy(a.sha256, sha, LVD_SHA256_HEX_LEN + 1);
    if (store_begin(s, err) != 0)
        return -1;
    if (store_artifact_put(s, &a, err) != 0 ||
        store_path_put(s, abs, k->size, k->mtime_ns, k->inode, sha, err) != 0 ||
        store_commit(s, err) != 0) {
        store_rollback(s);
        return -1;
    }
    int rc = store_artifact_get(s, sha, out, err);
    if (rc == 1)
        return lvd_errf(err, "%s: artifact %s vanished from the store", store_path(s), sha);
    return rc;
}

/* Looks abs (stat'ed as k) up in the path cache: 0 with out filled when the
 * cache knows the bytes and the artifact has a shape (or allow_non_gguf), 1
 * when it does not (sha set when only the shape is missing, *known_bytes 1),
 * -1 on error. */
static int lookup(store *s, const char *abs, const file_key *k, int allow_non_gguf,
                  store_artifact *out, char sha[LVD_SHA256_HEX_LEN + 1], int *known_bytes,
                  lvd_err *err)
{
    *known_bytes = 0;
    int miss = store_path_lookup(s, abs, k->size, k->mtime_ns, k->inode, sha, err);
    if (miss)
        return miss;
    *known_bytes = 1;
    int none = store_artifact_get(s, sha, out, err);
    if (none < 0)
        return -1;
    if (!none && (out->shape.known || allow_non_gguf))
        return 0; /* the cache answered: the file was not opened */
    /* known bytes, no shape yet (e.g. imported by hash) */
    store_artifact_free(out);
    return 1;
}

int store_identify_cached(store *s, const char *path, store_artifact *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    char *abs = realpath(path, NULL);
    if (!abs)
        return lvd_errf(err, "%s: %s", path, strerror(errno));
    file_key k;
    char sha[LVD_SHA256_HEX_LEN + 1];
    int known;
    int rc = stat_key(abs, &k, err);
    if (rc == 0)
        rc = lookup(s, abs, &k, 0, out, sha, &known, err);
    free(abs);
    return rc;
}

int store_identify(store *s, const char *path, int allow_non_gguf, store_artifact *out,
                   int *hashed, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (hashed)
        *hashed = 0;
    char *abs = realpath(path, NULL);
    if (!abs)
        return lvd_errf(err, "%s: %s", path, strerror(errno));
    int rc = -1, known = 0;
    file_key k;
    char sha[LVD_SHA256_HEX_LEN + 1];
    if (stat_key(abs, &k, err) != 0)
        goto done;
    int miss = lookup(s, abs, &k, allow_non_gguf, out, sha, &known, err);
    if (miss <= 0) {
        rc = miss;
        goto done;
    }
    /* the shape first: a file that is not GGUF fails before a long hash */
    gguf_shape shape;
    if (gguf_read_shape(abs, &shape, err) != 0) {
        if (!allow_non_gguf)
            goto done;
        memset(&shape, 0, sizeof shape);
        shape.file_type = -1;
    }
    if (!known) {
        if (hash_unchanged(abs, &k, sha, err) != 0)
            goto done;
        if (hashed)
            *hashed = 1;
    }
    rc = record(s, abs, &k, sha, &shape, out, err);
done:
    if (rc != 0)
        store_artifact_free(out);
    free(abs);
    return rc;
}
