/* stamp.h: a local store's content stamp, read from its files without
 * opening SQLite: text that changes whenever a transaction commits to the
 * store, for a caller that keeps an answer computed from the store and
 * wants to know, cheaply, whether the store may have changed since (lvd
 * select's answer cache, select/cache.h). Not for reading the store
 * (store.h) nor for a remote store (a PostgreSQL store has no stamp).
 *
 * The stamp of a store in WAL mode (every store a recording tool opened;
 * store_sqlite.c) is:
 *   - the database file's stat (device, inode, size, mtime, ctime): a file
 *     replaced, restored or checkpointed into;
 *   - the -wal file's stat but its ctime (SQLite run as root chowns the
 *     file at every open, a reader's too) and its 32-byte header (magic, page size,
 *     checkpoint sequence, salts: SQLite draws new salts at every WAL reset);
 *   - when the -wal file holds frames, the wal-index header of the -shm file
 *     (both copies, which must agree): page size, mxFrame (the last committed
 *     frame), the database size in pages, the running checksum of the last
 *     committed frame and the salts. Every commit appends at least one frame
 *     after mxFrame and moves it and the running checksum, or resets the WAL
 *     (new salts); a commit that overwrites the frames of a reset WAL in
 *     place leaves the file's size and header as they were, which is why the
 *     wal-index header is part of the stamp. The fields a reader's recovery
 *     rewrites without a commit (the change counter, the header checksum)
 *     are left out: a read-only connection rebuilding the index does not
 *     change the stamp.
 * A store whose -wal file is empty (the last writer checkpointed and
 * truncated it on close) is stamped by the database file and the empty
 * -wal file alone: the next commit writes frames into it.
 * A store not in WAL mode (a rollback journal, set by hand), a -wal file
 * with frames but no readable or consistent wal-index, or a file that
 * cannot be read has no stamp. Timestamps are whole-tick (the kernel's
 * coarse clock): a caller that trusts the stat fields must not keep an
 * answer whose files changed in the current tick (newest_ns below). */
#ifndef LVD_STORE_STAMP_H
#define LVD_STORE_STAMP_H

#include "common/util.h"

#include <stdint.h>

/* Appends the stamp of the store at path to out (one line of text). 0, or
 * -1 when the store has none (remote, not WAL, unreadable; out unchanged).
 * *newest_ns receives the newest mtime or ctime of its files, ns since the
 * epoch (NULL: not wanted). */
int store_stamp(const char *path, lvd_sb *out, int64_t *newest_ns);

/* The stat fields a stamp records of one file, as text ("-" when the file
 * does not exist): device, inode, mode, size, mtime and ctime in ns. Appends
 * to out; 0, or -1 when path exists but cannot be stat'ed. newest_ns as
 * above (kept when larger). For callers that stamp other files the same way. */
int store_stamp_file(const char *path, lvd_sb *out, int64_t *newest_ns);

#endif
