/* stamp.c: a local store's content stamp without SQLite (see stamp.h):
 * the file stats and the SQLite headers it reads, and their checks. Not for
 * what a caller keys with the stamp (select/cache.c). */
#include "store/stamp.h"

#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WAL_HEADER 32       /* the -wal file's header */
#define SHM_HEADER 48       /* one copy of the wal-index header; two in a row */
#define SHM_VERSION 3007000 /* WalIndexHdr.iVersion */

static int64_t ns_of(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* store_stamp_file, with the ctime or without it ("-"). */
static int stat_file(const char *path, int with_ctime, lvd_sb *out, int64_t *newest_ns)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return -1;
        lvd_sb_adds(out, " -");
        return 0;
    }
    int64_t m = ns_of(st.st_mtim), c = with_ctime ? ns_of(st.st_ctim) : 0;
    lvd_sb_addf(out, " %llu:%llu:%o:%lld:%lld:", (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                (unsigned)st.st_mode, (long long)st.st_size, (long long)m);
    if (with_ctime)
        lvd_sb_addf(out, "%lld", (long long)c);
    else
        lvd_sb_addc(out, '-');
    if (newest_ns && (m > *newest_ns || c > *newest_ns))
        *newest_ns = m > c ? m : c;
    return 0;
}

int store_stamp_file(const char *path, lvd_sb *out, int64_t *newest_ns)
{
    return stat_file(path, 1, out, newest_ns);
}

/* Reads n bytes at offset 0 of path into buf: 0, or -1 short or unreadable. */
static int read_head(const char *path, unsigned char *buf, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t got = pread(fd, buf, n, 0);
    close(fd);
    return got == (ssize_t)n ? 0 : -1;
}

static void add_hex(lvd_sb *out, const unsigned char *b, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        lvd_sb_addc(out, digits[b[i] >> 4]);
        lvd_sb_addc(out, digits[b[i] & 15]);
    }
}

/* The database header: an SQLite 3 file in WAL mode (read and write
 * versions 2, bytes 18 and 19). */
static int wal_mode_db(const char *path)
{
    unsigned char h[20];
    return read_head(path, h, sizeof h) == 0 && !memcmp(h, "SQLite format 3", 16) && h[18] == 2 && h[19] == 2
               ? 0
               : -1;
}

/* The wal-index fields a commit moves (stamp.h), when both copies agree,
 * the index is initialised and its salts are the -wal header's. */
static int add_index(const char *shm, const unsigned char wal[WAL_HEADER], lvd_sb *out)
{
    unsigned char h[2 * SHM_HEADER];
    if (read_head(shm, h, sizeof h) != 0 || memcmp(h, h + SHM_HEADER, SHM_HEADER) != 0)
        return -1;
    uint32_t version;
    memcpy(&version, h, sizeof version); /* native byte order, as SQLite writes it */
    if (version != SHM_VERSION || h[12] != 1 || memcmp(h + 32, wal + 16, 8) != 0)
        return -1;
    lvd_sb_adds(out, " index ");
    add_hex(out, h + 14, 26); /* szPage, mxFrame, nPage, aFrameCksum, aSalt */
    return 0;
}

int store_stamp(const char *path, lvd_sb *out, int64_t *newest_ns)
{
    if (store_is_remote(path) || wal_mode_db(path) != 0)
        return -1;
    lvd_sb sb = {0};
    int64_t newest = 0;
    char *wal = lvd_xasprintf("%s-wal", path), *shm = lvd_xasprintf("%s-shm", path);
    struct stat st;
    /* not the -wal file's ctime: SQLite run as root chowns it at every open */
    int rc = stat_file(path, 1, &sb, &newest) == 0 && stat_file(wal, 0, &sb, &newest) == 0 ? 0 : -1;
    if (rc == 0 && stat(wal, &st) == 0 && st.st_size > 0) {
        unsigned char h[WAL_HEADER];
        rc = read_head(wal, h, sizeof h) == 0 && add_index(shm, h, &sb) == 0 ? 0 : -1;
        if (rc == 0) {
            lvd_sb_adds(&sb, " wal ");
            add_hex(&sb, h, sizeof h);
        }
    }
    if (rc == 0) {
        lvd_sb_add(out, sb.buf, sb.len);
        if (newest_ns)
            *newest_ns = newest;
    }
    lvd_sb_free(&sb);
    free(wal);
    free(shm);
    return rc;
}
