/* store_pg.c: the PostgreSQL side of the store's dialect seam (libpq): the
 * connection (the password only from libpq's own places, never in the URI;
 * sslmode and the rest passed through), its error messages (naming the
 * server, never a password), the schema version (table lvd_schema), write
 * transactions serialised by an advisory lock, and the migrations
 * (schema_pg.c). The statements are store_pg_stmt.c; libpq itself is
 * loaded on the first open (store_pg_lib.c). */
#include "store/store_pg.h"
#include "store/schema.h"
#include "store/schema_pg.h"
#include "store/store_pg_lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The advisory lock every write transaction takes ("lvd" in ASCII): writers
 * on one database take turns, as SQLite's BEGIN IMMEDIATE makes them. */
#define WRITE_LOCK_KEY 0x6c7664

char *store_display(const char *spec)
{
    lvd_sb sb = {0};
    for (const char *p = spec ? spec : ""; *p;) {
        if (!strncmp(p, "://", 3)) { /* user:password@ -> user@ */
            size_t auth = strcspn(p + 3, "/?@");
            const char *colon = memchr(p + 3, ':', auth);
            lvd_sb_add(&sb, p, 3);
            if (p[3 + auth] == '@' && colon) {
                lvd_sb_add(&sb, p + 3, (size_t)(colon - (p + 3)));
                p += 3 + auth;
            } else {
                p += 3;
            }
            continue;
        }
        if (!strncmp(p, "password=", 9)) {
            lvd_sb_adds(&sb, "password=***");
            p += 9 + strcspn(p + 9, "& \t");
            continue;
        }
        lvd_sb_addc(&sb, *p++);
    }
    return lvd_sb_detach(&sb);
}

/* The first line of a libpq message, a password scrubbed from it. */
static void first_line(const char *msg, char *buf, size_t len)
{
    char *clean = store_display(msg && *msg ? msg : "unknown error");
    clean[strcspn(clean, "\n")] = '\0';
    snprintf(buf, len, "%s", clean);
    free(clean);
}

void pg_keep_error(store *s, PGresult *res)
{
    PQclear(s->pg_err);
    s->pg_err = res;
}

static const char *describe(store *s, char *buf, size_t len)
{
    const char *m = s->pg_err ? PQresultErrorField(s->pg_err, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    if (!m && s->pg_err)
        m = PQresultErrorMessage(s->pg_err);
    if ((!m || !*m) && s->pg_err) /* run()'s COMMIT that rolled back */
        m = "the transaction was rolled back: a statement in it had failed";
    if (!m || !*m)
        m = s->pg ? PQerrorMessage(s->pg) : NULL;
    first_line(m && *m ? m : "no row where one was expected", buf, len);
    return buf;
}

static int pgs_fail(store *s, lvd_err *err, const char *what)
{
    char why[512];
    return lvd_errf(err, "%s: %s: %s", s->path, what, describe(s, why, sizeof why));
}

/* Runs sql (no parameters); 0 with *out (may be NULL) or -1, the failure kept. */
static int run(store *s, const char *sql, PGresult **out)
{
    /* a COMMIT of a transaction a failed statement aborted rolls back, and
       says so only in its command tag: a failure here, as SQLite's would be */
    int commit = !strncmp(sql, "COMMIT", 6) && PQtransactionStatus(s->pg) == PQTRANS_INERROR;
    PGresult *res = PQexec(s->pg, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        pg_keep_error(s, res);
        return -1;
    }
    if (commit) {
        PQclear(res);
        res = PQmakeEmptyPGresult(s->pg, PGRES_FATAL_ERROR);
        pg_keep_error(s, res);
        return -1;
    }
    if (out)
        *out = res;
    else
        PQclear(res);
    return 0;
}

static int pgs_exec(store *s, const char *sql, lvd_err *err)
{
    if (run(s, sql, NULL) == 0)
        return 0;
    char why[512];
    return lvd_errf(err, "%s: %s", s->path, describe(s, why, sizeof why));
}

static int pgs_exec_quiet(store *s, const char *sql) { return run(s, sql, NULL); }

/* SQLSTATE 23505 on table's unique constraint whose key lists col. */
static int pgs_unique_violation(store *s, const char *column)
{
    if (!s->pg_err)
        return 0;
    const char *state = PQresultErrorField(s->pg_err, PG_DIAG_SQLSTATE);
    const char *table = PQresultErrorField(s->pg_err, PG_DIAG_TABLE_NAME);
    const char *detail = PQresultErrorField(s->pg_err, PG_DIAG_MESSAGE_DETAIL);
    const char *dot = strchr(column, '.');
    if (!state || strcmp(state, "23505") || !table || !detail || !dot || strncmp(detail, "Key (", 5))
        return 0;
    if (strlen(table) != (size_t)(dot - column) || strncmp(table, column, (size_t)(dot - column)))
        return 0;
    const char *col = dot + 1;
    size_t n = strlen(col);
    for (const char *k = detail + 5; *k && *k != ')'; k += strcspn(k, ",)"), k += *k == ',' ? 1 : 0) {
        k += strspn(k, " ");
        if (!strncmp(k, col, n) && (k[n] == ',' || k[n] == ')'))
            return 1;
    }
    return 0;
}

static int pgs_begin_write(store *s, lvd_err *err)
{
    char sql[96];
    snprintf(sql, sizeof sql, "BEGIN; SELECT pg_advisory_xact_lock(%d)", WRITE_LOCK_KEY);
    if (pgs_exec(s, sql, err) == 0)
        return 0;
    run(s, "ROLLBACK", NULL);
    return -1;
}

/* One row, one column of text from sql into buf; 0, or -1 with err. */
static int one_value(store *s, const char *sql, const char *what, char *buf, size_t len, lvd_err *err)
{
    PGresult *res;
    if (run(s, sql, &res))
        return pgs_fail(s, err, what);
    int ok = PQntuples(res) == 1 && PQnfields(res) == 1 && !PQgetisnull(res, 0, 0);
    if (ok)
        snprintf(buf, len, "%s", PQgetvalue(res, 0, 0));
    PQclear(res);
    return ok ? 0 : lvd_errf(err, "%s: %s: no value", s->path, what);
}

/* 0 for a database without lvd_schema (nothing of ours yet). */
static int pgs_version_get(store *s, int64_t *v, lvd_err *err)
{
    char buf[64];
    *v = 0;
    if (one_value(s, "SELECT to_regclass('lvd_schema') IS NOT NULL", "cannot read schema version", buf,
                  sizeof buf, err))
        return -1;
    if (strcmp(buf, "t"))
        return 0;
    if (one_value(s, "SELECT max(version) FROM lvd_schema", "cannot read schema version", buf, sizeof buf, err))
        return -1;
    *v = strtoll(buf, NULL, 10);
    return 0;
}

static int pgs_version_set(store *s, int64_t v, lvd_err *err)
{
    char sql[96];
    snprintf(sql, sizeof sql, "UPDATE lvd_schema SET version = %lld", (long long)v);
    return pgs_exec(s, sql, err);
}

/* A new database gets the base schema whole; then one step at a time. */
static char *pgs_migration(int64_t have, int64_t *to)
{
    if (have == 0) {
        *to = STORE_PG_BASE_VERSION;
        return store_pg_schema_base();
    }
    if (have < STORE_PG_BASE_VERSION)
        return NULL;
    *to = have + 1;
    return store_pg_schema_step((size_t)(have + 1));
}

/* The server enforces the constraints; what is left to check is that none
 * was added unvalidated. */
static int pgs_integrity_check(store *s, lvd_err *err)
{
    char buf[256];
    if (one_value(s,
                  "SELECT count(*) || COALESCE(' (' || min(conrelid::regclass::text || '.' || conname) || ')', '')"
                  " FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace"
                  " WHERE n.nspname = current_schema() AND NOT c.convalidated",
                  "cannot check integrity", buf, sizeof buf, err))
        return -1;
    if (strcmp(buf, "0"))
        return lvd_errf(err, "%s: integrity check failed: %s constraint(s) not validated", s->path, buf);
    return 0;
}

static int64_t pgs_last_id(store *s)
{
    char buf[32];
    if (one_value(s, "SELECT lastval()", "cannot read the new row's id", buf, sizeof buf, NULL))
        return 0;
    return strtoll(buf, NULL, 10);
}

static void no_notices(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* A password in the store specification would show in the process list and
 * in logs: refused, saying where libpq looks for one. */
static int refuse_password(const char *spec, const char *shown, lvd_err *err)
{
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(spec, &why);
    if (!opts) {
        char line[512];
        first_line(why, line, sizeof line);
        PQfreemem(why);
        return lvd_errf(err, "%s: not a PostgreSQL connection string: %s", shown, line);
    }
    int has = 0;
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (!strcmp(o->keyword, "password") && o->val && *o->val)
            has = 1;
    PQconninfoFree(opts);
    if (has)
        return lvd_errf(err, "%s: a password in the store URI is refused (it would show in the process list "
                        "and logs): put it in ~/.pgpass, PGPASSWORD or a service file (PGSERVICEFILE)", shown);
    return 0;
}

static int pgs_open(store *s, int flags, lvd_err *err)
{
    (void)flags; /* the database must exist: the server's owner creates it */
    char *spec = s->path;
    s->path = store_display(spec);
    if (store_pg_load(s->path, err) || refuse_password(spec, s->path, err)) {
        free(spec);
        return -1;
    }
    /* connect_timeout before dbname: the URI's own setting wins */
    const char *const keys[] = {"connect_timeout", "fallback_application_name", "dbname", NULL};
    const char *const vals[] = {"10", "llama-verdict", spec, NULL};
    s->pg = PQconnectdbParams(keys, vals, 1);
    free(spec);
    if (!s->pg)
        return lvd_errf(err, "%s: cannot connect to the PostgreSQL server: out of memory", s->path);
    if (PQstatus(s->pg) != CONNECTION_OK) {
        char line[512];
        first_line(PQerrorMessage(s->pg), line, sizeof line);
        const char *host = PQhost(s->pg), *port = PQport(s->pg), *db = PQdb(s->pg);
        return lvd_errf(err, "%s: cannot connect to the PostgreSQL server (host %s, port %s, database %s): %s",
                        s->path, host && *host ? host : "default", port && *port ? port : "5432",
                        db && *db ? db : "default", line);
    }
    PQsetNoticeProcessor(s->pg, no_notices, NULL);
    return pgs_exec(s, s->readonly ? "SET default_transaction_read_only = on; SET lock_timeout = '120s'"
                                   : "SET lock_timeout = '120s'",
                    err);
}

static void pgs_close(store *s)
{
    if (s->pg_err) /* NULL, too, when libpq never loaded */
        PQclear(s->pg_err);
    s->pg_err = NULL;
    if (s->pg)
        PQfinish(s->pg);
    s->pg = NULL;
}

const store_ops store_pg_ops = {
    .open = pgs_open,
    .close = pgs_close,
    .prepare = pg_prepare,
    .fail = pgs_fail,
    .exec = pgs_exec,
    .exec_quiet = pgs_exec_quiet,
    .unique_violation = pgs_unique_violation,
    .begin_write = pgs_begin_write,
    .version_get = pgs_version_get,
    .version_set = pgs_version_set,
    .migration = pgs_migration,
    .integrity_check = pgs_integrity_check,
    .last_id = pgs_last_id,
    .bind_i64 = pg_bind_i64,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .step = pg_step,
    .reset = pg_reset,
    .finalize = pg_finalize,
    .col_i64 = pg_col_i64,
    .col_real = pg_col_real,
    .col_text = pg_col_text,
    .col_null = pg_col_null,
    /* no bind_blob, col_blob: documents stay text (store_docs.h) */
};
