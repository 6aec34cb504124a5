/* digest.c: the digest over an engine's file set, with the per-file hash
 * cache (see digest.h). Not for choosing the files (files.c). */
#include "engine/digest.h"

#include "engine/files.h"
#include "common/sha256.h"
#include "store/filehash.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The SHA-256 of f: from the cache, else read (and recorded) when the file
 * did not change while it was read. *read is set to 1 when it was read. */
static int file_hash(store *s, const engine_file *f, char sha[LVD_SHA256_HEX_LEN + 1], int *read,
                     lvd_err *err)
{
    *read = 0;
    int rc = store_file_hash_lookup(s, f->path, f->size, f->mtime_ns, f->inode, sha, err);
    if (rc <= 0)
        return rc;
    uint64_t bytes = 0;
    if (lvd_sha256_file(f->path, sha, &bytes, err) != 0)
        return -1;
    struct stat st;
    if (stat(f->path, &st) != 0 || (int64_t)bytes != f->size || (int64_t)st.st_size != f->size ||
        (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec != f->mtime_ns ||
        (int64_t)st.st_ino != f->inode)
        return lvd_errf(err, "%s: the file changed while it was being hashed; try again", f->path);
    *read = 1;
    return store_file_hash_put(s, f->path, f->size, f->mtime_ns, f->inode, sha, err);
}

int engine_digest(store *s, const char *dir, char hex[LVD_SHA256_HEX_LEN + 1], size_t *hashed,
                  lvd_err *err)
{
    if (hashed)
        *hashed = 0;
    engine_fileset fs;
    if (engine_files_list(dir, &fs, err) != 0)
        return -1;
    if (fs.n == 0) {
        engine_fileset_free(&fs);
        return lvd_errf(err, "%s: no engine files (launchers or libraries) to digest", dir);
    }
    lvd_sha256 *h = lvd_sha256_new();
    int rc = 0;
    for (size_t i = 0; i < fs.n && rc == 0; i++) {
        char sha[LVD_SHA256_HEX_LEN + 1];
        int read;
        rc = file_hash(s, &fs.v[i], sha, &read, err);
        if (rc == 0) {
            char *line = lvd_xasprintf("%s  %s\n", sha, fs.v[i].rel);
            lvd_sha256_update(h, line, strlen(line));
            free(line);
            if (hashed)
                *hashed += (size_t)read;
        }
    }
    if (rc == 0)
        lvd_sha256_final(h, hex);
    else
        lvd_sha256_abort(h);
    engine_fileset_free(&fs);
    return rc;
}
