/* store_fallback.c: the local fallback copy of what `lvd select` reads on one
 * host (store/fleetdb.h store_fallback_refresh): tables copied row by row,
 * ids kept, into a fresh SQLite file renamed over the old copy. Not for the
 * decision to read the copy (select/fallback.c). */
#include "store/fleetdb.h"
#include "store/store_docs.h"
#include "store/store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What is copied, parents before children (foreign keys hold at each insert);
 * by_host: only host's rows. */
static const struct {
    const char *table;
    int by_host;
} copied[] = {
    {"artifacts", 0}, {"artifact_paths", 0}, {"shard_paths", 0}, {"engines", 0}, {"probes", 0},
    {"devices", 0},   {"file_hashes", 0},    {"pins", 0},        {"verdict_fingerprints", 0},
    {"verdicts", 1},  {"checks", 1},         {"ceilings", 1},
};

/* The columns of table in the copy (the binary's own schema, which the
 * primary has too: store_open migrated or refused it), quoted, as "\"a\", \"b\"" into sb;
 * how many. The copy is SQLite by definition, hence its PRAGMA. -1 on error. */
static int columns(store *copy, const char *table, lvd_sb *sb, lvd_err *err)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT name FROM pragma_table_info('%s') ORDER BY cid", table);
    store_stmt *st;
    if (store_prepare(copy, sql, &st, err))
        return -1;
    int n = 0, rc;
    while ((rc = store_step(st)) == STORE_ROW)
        lvd_sb_addf(sb, "%s\"%s\"", n++ ? ", " : "", store_col_text(st, 0)); /* quoted: "binary" */
    store_finalize(st);
    if (rc != STORE_DONE)
        return store_fail(copy, err, "cannot read the copy's columns");
    return n;
}

/* A column of the list columns() makes, without its space and quotes (in place). */
static const char *unquoted(char *name)
{
    name += strspn(name, " \"");
    name[strcspn(name, "\"")] = '\0';
    return name;
}

/* INSERT INTO table (cols) VALUES (?1, ..., ?n). Caller frees. */
static char *insert_sql(const char *table, const char *cols, int n)
{
    lvd_sb sb = {0};
    lvd_sb_addf(&sb, "INSERT INTO %s (%s) VALUES (", table, cols);
    for (int i = 1; i <= n; i++)
        lvd_sb_addf(&sb, "%s?%d", i > 1 ? ", " : "", i);
    lvd_sb_adds(&sb, ")");
    return lvd_sb_detach(&sb);
}

/* Copies the rows of one table (host's only when by_host) from primary into copy. */
static int copy_table(store *primary, store *copy, const char *table, const char *host, lvd_err *err)
{
    lvd_sb cols = {0};
    int n = columns(copy, table, &cols, err);
    if (n <= 0) {
        lvd_sb_free(&cols);
        return n < 0 ? -1 : lvd_errf(err, "%s: no table %s in the copy", store_path(copy), table);
    }
    char *sel = host ? lvd_xasprintf("SELECT %s FROM %s WHERE host = ?1", lvd_sb_str(&cols), table)
                     : lvd_xasprintf("SELECT %s FROM %s", lvd_sb_str(&cols), table);
    char *ins = insert_sql(table, lvd_sb_str(&cols), n);
    /* which columns hold a packed document, decided once for the table, not per row */
    size_t n_names;
    char **names = lvd_split(lvd_sb_str(&cols), ',', &n_names);
    unsigned char *doc = lvd_xcalloc((size_t)n, 1);
    for (size_t i = 0; i < n_names && i < (size_t)n; i++)
        doc[i] = (unsigned char)store_doc_column(table, unquoted(names[i]));
    lvd_strv_free(names);
    lvd_sb_free(&cols);
    store_stmt *from = NULL, *to = NULL;
    int ret = -1, rc = STORE_ERROR;
    if (store_prepare(primary, sel, &from, err) || store_prepare(copy, ins, &to, err))
        goto out;
    if (host)
        store_bind_text(from, 1, host);
    while ((rc = store_step(from)) == STORE_ROW) {
        for (int i = 0; i < n; i++) {
            if (store_col_null(from, i)) {
                store_bind_null(to, i + 1);
            } else if (doc[i]) {
                char *text = store_col_doc(from, i);
                store_bind_doc(to, i + 1, text);
                free(text);
            } else {
                store_bind_text(to, i + 1, store_col_text(from, i)); /* the column's affinity types it */
            }
        }
        if (store_step(to) != STORE_DONE) {
            store_fail(copy, err, "cannot write the fallback copy");
            goto out;
        }
        store_reset(to);
    }
    if (rc != STORE_DONE) {
        store_fail(primary, err, "cannot read what the fallback copy holds");
        goto out;
    }
    ret = 0;
out:
    store_finalize(from);
    store_finalize(to);
    free(sel);
    free(ins);
    free(doc);
    return ret;
}

/* Removes path and its -wal and -shm files (a failed or finished build). */
static void remove_db(const char *path)
{
    static const char *const ext[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < LVD_ARRAY_LEN(ext); i++) {
        char *p = lvd_xasprintf("%s%s", path, ext[i]);
        unlink(p);
        free(p);
    }
}

/* Whether path is the primary store's own file (never replace the store by its copy). */
static int is_primary(store *primary, const char *path)
{
    struct stat a, b;
    return stat(path, &a) == 0 && stat(store_path(primary), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int store_fallback_refresh(store *primary, const char *fallback_path, const char *host, lvd_err *err)
{
    if (!strcmp(fallback_path, store_path(primary)) || is_primary(primary, fallback_path))
        return lvd_errf(err, "%s: the fallback copy would replace the store itself; name another file",
                        fallback_path);
    char *tmp = lvd_xasprintf("%s.tmp", fallback_path);
    remove_db(tmp);
    store *copy;
    int ret = -1;
    if (store_open(tmp, STORE_OPEN_CREATE, &copy, err) != 0)
        goto out;
    if (store_begin(copy, err) != 0) {
        store_close(copy);
        goto out;
    }
    for (size_t i = 0; i < LVD_ARRAY_LEN(copied); i++) {
        if (copy_table(primary, copy, copied[i].table, copied[i].by_host ? host : NULL, err) != 0) {
            store_rollback(copy);
            store_close(copy);
            goto out;
        }
    }
    if (store_commit(copy, err) != 0) {
        store_close(copy);
        goto out;
    }
    store_close(copy);
    char *wal = lvd_xasprintf("%s-wal", tmp), *shm = lvd_xasprintf("%s-shm", tmp);
    unlink(wal); /* checkpointed at close */
    unlink(shm);
    free(wal);
    free(shm);
    if (rename(tmp, fallback_path) != 0)
        lvd_errf(err, "%s: cannot replace the fallback copy: %s", fallback_path, strerror(errno));
    else
        ret = 0;
out:
    if (ret != 0)
        remove_db(tmp);
    free(tmp);
    return ret;
}
