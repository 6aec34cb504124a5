/* store_pg_stmt.c: the PostgreSQL side of the seam's statements (libpq):
 * ?N parameters become $k (only the numbers the text uses, compactly, since
 * PostgreSQL refuses a parameter it cannot type), values are bound as text
 * and the statement runs on its first step (PQexecParams); steps then walk
 * the rows it returned. Reset keeps the bindings, as SQLite's does. A
 * statement run a second time (a loop of inserts) is prepared on the server
 * then, and runs prepared from there on: parsed and planned once. */
#include "store/store_pg.h"
#include "store/store_pg_lib.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pg_stmt {
    store_stmt base;
    store *s;
    char *sql;      /* with $k parameters */
    int *slot;      /* ?N -> k - 1, or -1 when the text lacks N; nslot entries */
    int nslot;
    int nparam;
    char **values;  /* nparam text values; NULL binds SQL NULL */
    PGresult *res;  /* after the first step */
    int row;        /* the current row; -1 before the first */
    int runs;       /* times executed */
    char name[32];  /* the server's prepared statement, "" until prepared */
} pg_stmt;

static pg_stmt *P(store_stmt *st) { return (pg_stmt *)st; }

/* Length of the quoted literal or identifier starting at p (its quote
 * character q doubled inside), so that a ? in one is left alone. */
static size_t quoted_len(const char *p)
{
    char q = *p;
    size_t i = 1;
    while (p[i]) {
        if (p[i] == q && p[i + 1] == q)
            i += 2;
        else if (p[i++] == q)
            break;
    }
    return i;
}

/* The number ?N (or a bare ?, one past the largest so far) at *p names, with
 * *p moved past it. */
static int param_number(const char **p, int *largest)
{
    const char *q = *p + 1;
    int n = 0;
    while (*q >= '0' && *q <= '9' && n < 100000)
        n = n * 10 + (*q++ - '0');
    if (q == *p + 1)
        n = *largest + 1;
    if (n > *largest)
        *largest = n;
    *p = q;
    return n;
}

/* Rewrites sql's ?N into $k, numbering in order of first use. */
static void translate(pg_stmt *t, const char *sql)
{
    lvd_sb out = {0};
    int largest = 0;
    for (const char *p = sql; *p;) {
        if (*p == '\'' || *p == '"') {
            size_t n = quoted_len(p);
            lvd_sb_add(&out, p, n);
            p += n;
            continue;
        }
        if (*p != '?') {
            lvd_sb_addc(&out, *p++);
            continue;
        }
        int n = param_number(&p, &largest);
        if (n >= t->nslot) {
            int old = t->nslot;
            t->nslot = n + 8;
            t->slot = lvd_xrealloc(t->slot, (size_t)t->nslot * sizeof *t->slot);
            for (int i = old; i < t->nslot; i++)
                t->slot[i] = -1;
        }
        if (t->slot[n] < 0)
            t->slot[n] = t->nparam++;
        lvd_sb_addf(&out, "$%d", t->slot[n] + 1);
    }
    t->sql = lvd_sb_detach(&out);
}

int pg_prepare(store *s, const char *sql, store_stmt **st, lvd_err *err)
{
    (void)err;
    pg_stmt *t = lvd_xcalloc(1, sizeof *t);
    t->base.ops = &store_pg_ops;
    t->s = s;
    translate(t, sql);
    t->values = lvd_xcalloc((size_t)(t->nparam ? t->nparam : 1), sizeof *t->values);
    t->row = -1;
    *st = &t->base;
    return 0;
}

static void set_value(pg_stmt *t, int idx, char *v)
{
    if (idx <= 0 || idx >= t->nslot || t->slot[idx] < 0) {
        free(v); /* a number the text lacks: ignored, as SQLite does */
        return;
    }
    free(t->values[t->slot[idx]]);
    t->values[t->slot[idx]] = v;
}

void pg_bind_i64(store_stmt *st, int idx, int64_t v) { set_value(P(st), idx, lvd_xasprintf("%lld", (long long)v)); }

void pg_bind_double(store_stmt *st, int idx, double v)
{
    /* SQLite stores a NaN as NULL; so does this side. */
    set_value(P(st), idx, isnan(v) ? NULL : isinf(v) ? lvd_xstrdup(v > 0 ? "Infinity" : "-Infinity")
                                                     : lvd_xasprintf("%.17g", v));
}

void pg_bind_text(store_stmt *st, int idx, const char *v) { set_value(P(st), idx, v ? lvd_xstrdup(v) : NULL); }

static void clear_result(pg_stmt *t)
{
    PQclear(t->res);
    t->res = NULL;
    t->row = -1;
}

/* Runs t: prepared on the server from its second run on. */
static PGresult *execute(pg_stmt *t)
{
    static unsigned long serial;
    const char *const *values = (const char *const *)t->values;
    if (t->runs++ == 1) {
        char name[32];
        snprintf(name, sizeof name, "lvd_%lu", ++serial);
        PGresult *prep = PQprepare(t->s->pg, name, t->sql, t->nparam, NULL);
        if (PQresultStatus(prep) == PGRES_COMMAND_OK)
            snprintf(t->name, sizeof t->name, "%s", name);
        PQclear(prep); /* not prepared: it runs unprepared, failing as it would */
    }
    if (t->name[0])
        return PQexecPrepared(t->s->pg, t->name, t->nparam, values, NULL, NULL, 0);
    return PQexecParams(t->s->pg, t->sql, t->nparam, NULL, values, NULL, NULL, 0);
}

int pg_step(store_stmt *st)
{
    pg_stmt *t = P(st);
    if (!t->res) {
        PGresult *res = execute(t);
        ExecStatusType status = PQresultStatus(res);
        if (status != PGRES_TUPLES_OK && status != PGRES_COMMAND_OK) {
            pg_keep_error(t->s, res);
            return STORE_ERROR;
        }
        t->res = res;
    }
    if (t->row + 1 < PQntuples(t->res)) {
        t->row++;
        return STORE_ROW;
    }
    t->row = PQntuples(t->res);
    return STORE_DONE;
}

void pg_reset(store_stmt *st) { clear_result(P(st)); }

void pg_finalize(store_stmt *st)
{
    pg_stmt *t = P(st);
    clear_result(t);
    if (t->name[0] && PQtransactionStatus(t->s->pg) != PQTRANS_INERROR) {
        char sql[48];
        snprintf(sql, sizeof sql, "DEALLOCATE %s", t->name);
        PQclear(PQexec(t->s->pg, sql));
    }
    for (int i = 0; i < t->nparam; i++)
        free(t->values[i]);
    free(t->values);
    free(t->slot);
    free(t->sql);
    free(t);
}

/* The current row's value at col, or NULL (SQL NULL, no row, no column). */
static const char *value(store_stmt *st, int col)
{
    pg_stmt *t = P(st);
    if (!t->res || t->row < 0 || t->row >= PQntuples(t->res) || col < 0 || col >= PQnfields(t->res) ||
        PQgetisnull(t->res, t->row, col))
        return NULL;
    return PQgetvalue(t->res, t->row, col);
}

/* Booleans come back as t / f; numbers as their text. */
double pg_col_real(store_stmt *st, int col)
{
    const char *v = value(st, col);
    if (!v)
        return 0;
    if (!strcmp(v, "t") || !strcmp(v, "f"))
        return *v == 't';
    return strtod(v, NULL);
}

int64_t pg_col_i64(store_stmt *st, int col)
{
    const char *v = value(st, col);
    if (!v)
        return 0;
    if (strpbrk(v, ".eEtfIN")) /* a real (SQLite truncates it too) or a boolean */
        return (int64_t)pg_col_real(st, col);
    return strtoll(v, NULL, 10);
}

const char *pg_col_text(store_stmt *st, int col) { return value(st, col); }
int pg_col_null(store_stmt *st, int col) { return value(st, col) == NULL; }
