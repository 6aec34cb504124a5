/* test_stamp.c: a store's content stamp (store/stamp.h), read without
 * SQLite: it moves at every commit, including the commit that overwrites
 * the frames of a reset WAL in place (the file's size and header stay as
 * they were), and it does not move when a reader, the first connection,
 * rebuilds the wal-index; a store not in WAL mode or a remote one has none. */
#include "tests/support/testutil.h"

#include "common/util.h"
#include "store/stamp.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>

static sqlite3 *open_db(const char *path, int flags)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, flags, NULL), SQLITE_OK);
    return db;
}

static void exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
    if (rc != SQLITE_OK)
        fail_msg("%s: %s", sql, msg ? msg : "?");
}

static char *stamp(const char *path)
{
    lvd_sb sb = {0};
    assert_int_equal(store_stamp(path, &sb, NULL), 0);
    return lvd_sb_detach(&sb);
}

/* The -wal file's size, mtime and its 32-byte header. */
static void wal_head(const char *path, long long *size, struct timespec *mtime, unsigned char head[32])
{
    char *wal = lvd_xasprintf("%s-wal", path);
    struct stat st;
    assert_int_equal(stat(wal, &st), 0);
    *size = (long long)st.st_size;
    *mtime = st.st_mtim;
    FILE *f = fopen(wal, "rb");
    assert_non_null(f);
    assert_int_equal(fread(head, 1, 32, f), 32);
    fclose(f);
    free(wal);
}

static void test_every_commit_moves_it(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *path = lvd_xasprintf("%s/s.db", dir);
    sqlite3 *db = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    int persist = 1;
    sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist);
    exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x BLOB)");
    for (int i = 0; i < 64; i++) /* a long WAL */
        exec(db, "INSERT INTO t VALUES (randomblob(4000))");
    assert_int_equal(sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_RESTART, NULL, NULL), SQLITE_OK);
    exec(db, "INSERT INTO t VALUES (1)"); /* resets the WAL: new salts, frames from the start */
    long long size_a, size_b;
    struct timespec mtime_a, mtime_b;
    unsigned char head_a[32], head_b[32];
    wal_head(path, &size_a, &mtime_a, head_a);
    char *a = stamp(path);
    exec(db, "INSERT INTO t VALUES (2)"); /* in place: the file's size and header unchanged */
    /* and in the same clock tick: the mtime as it was (coarse timestamps) */
    char *wal = lvd_xasprintf("%s-wal", path);
    struct timespec times[2] = {mtime_a, mtime_a};
    assert_int_equal(utimensat(AT_FDCWD, wal, times, 0), 0);
    free(wal);
    wal_head(path, &size_b, &mtime_b, head_b);
    char *b = stamp(path);
    assert_true(size_a == size_b);
    assert_memory_equal(head_a, head_b, 32);
    assert_string_not_equal(a, b);
    exec(db, "UPDATE t SET x = 3 WHERE x = 2");
    char *c = stamp(path);
    assert_string_not_equal(b, c);
    /* a reader changes nothing, even the first connection, which rebuilds the index */
    sqlite3_close(db);
    char *closed = stamp(path);
    sqlite3 *r = open_db(path, SQLITE_OPEN_READONLY);
    exec(r, "SELECT count(*) FROM t");
    sqlite3_close(r);
    char *read = stamp(path);
    assert_string_equal(closed, read);
    free(a), free(b), free(c), free(closed), free(read);
    free(path);
    tu_tmpdir_free(dir);
}

static void test_none_without_wal(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *path = lvd_xasprintf("%s/r.db", dir);
    sqlite3 *db = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    exec(db, "CREATE TABLE t(x)"); /* a rollback journal */
    sqlite3_close(db);
    lvd_sb sb = {0};
    assert_int_equal(store_stamp(path, &sb, NULL), -1);
    assert_int_equal(sb.len, 0);
    char *missing = lvd_xasprintf("%s/none.db", dir);
    assert_int_equal(store_stamp(missing, &sb, NULL), -1);
    assert_int_equal(store_stamp("postgres://nobody@127.0.0.1/none", &sb, NULL), -1);
    assert_int_equal(store_stamp_file(missing, &sb, NULL), 0);
    assert_string_equal(lvd_sb_str(&sb), " -");
    lvd_sb_free(&sb);
    free(missing);
    free(path);
    tu_tmpdir_free(dir);
}

/* A torn or stale wal-index (the two copies disagree) is no stamp. */
static void test_torn_index(void **state)
{
    (void)state;
    char *dir = tu_tmpdir(), *path = lvd_xasprintf("%s/s.db", dir), *shm = lvd_xasprintf("%s-shm", path);
    sqlite3 *db = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)");
    free(stamp(path));
    FILE *f = fopen(shm, "r+b");
    assert_non_null(f);
    fseek(f, 48 + 16, SEEK_SET); /* the second copy's mxFrame */
    fputc(0x7f, f);
    fclose(f);
    lvd_sb sb = {0};
    assert_int_equal(store_stamp(path, &sb, NULL), -1);
    lvd_sb_free(&sb);
    sqlite3_close(db);
    free(shm);
    free(path);
    tu_tmpdir_free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_commit_moves_it),
        cmocka_unit_test(test_none_without_wal),
        cmocka_unit_test(test_torn_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
