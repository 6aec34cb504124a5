/* benchsql.c: the lexer and parser for llama-bench `-o sql` output (see
 * benchsql.h): CREATE TABLE and INSERT INTO statements turned into cJSON
 * objects shaped as `-o json` prints them, each handed to benchout.c's
 * bench_rows_add_object. Not for format detection, the json/jsonl readers or
 * mapping a result to a bench_row (bench/benchout.c), and not a general SQL
 * parser: only what llama-bench prints (and sqlite3 .dump keeps). */
#include "bench/benchsql.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The statements llama-bench prints: CREATE TABLE IF NOT EXISTS llama_bench
 * (col TYPE, ...); and INSERT INTO llama_bench (cols) VALUES (...); where every
 * value is a quoted string. BEGIN/COMMIT are tolerated; anything else is an
 * error. Values are typed by the CREATE TABLE column types when present. */

typedef enum { TK_EOF, TK_WORD, TK_STRING, TK_NUMBER, TK_NULL, TK_PUNCT } tk_kind;

typedef struct sql_lex {
    const char *p, *end;
    int line;
    const char *name;
    lvd_err *err;
    /* the current token */
    tk_kind kind;
    const char *tp;
    size_t tn;
    int tline;
    lvd_sb str;          /* unescaped value of a TK_STRING */
} sql_lex;

static int lex_next(sql_lex *lx)
{
    for (;;) {
        while (lx->p < lx->end && isspace((unsigned char)*lx->p))
            lx->line += *lx->p++ == '\n';
        if (lx->end - lx->p >= 2 && lx->p[0] == '-' && lx->p[1] == '-') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
            continue;
        }
        break;
    }
    lx->tp = lx->p;
    lx->tline = lx->line;
    if (lx->p >= lx->end) {
        lx->kind = TK_EOF;
        lx->tn = 0;
        return 0;
    }
    unsigned char c = (unsigned char)*lx->p;
    if (c == '\'') {
        lvd_sb_reset(&lx->str);
        for (lx->p++;; lx->p++) {
            if (lx->p >= lx->end)
                return lvd_errf(lx->err, "%s: line %d: unterminated string (truncated output?)", lx->name, lx->tline);
            if (*lx->p == '\'') {
                if (lx->p + 1 < lx->end && lx->p[1] == '\'') {
                    lvd_sb_addc(&lx->str, '\'');
                    lx->p++;
                    continue;
                }
                lx->p++;
                break;
            }
            lx->line += *lx->p == '\n';
            lvd_sb_addc(&lx->str, *lx->p);
        }
        lx->kind = TK_STRING;
    } else if (isdigit(c) || ((c == '-' || c == '+' || c == '.') && lx->p + 1 < lx->end &&
                              (isdigit((unsigned char)lx->p[1]) || lx->p[1] == '.'))) {
        lx->p++;
        while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '.' ||
                                   ((*lx->p == '-' || *lx->p == '+') && (lx->p[-1] == 'e' || lx->p[-1] == 'E'))))
            lx->p++;
        lx->kind = TK_NUMBER;
    } else if (isalpha(c) || c == '_' || c == '"') {
        if (c == '"') {
            const char *q = memchr(lx->p + 1, '"', (size_t)(lx->end - lx->p - 1));
            if (!q)
                return lvd_errf(lx->err, "%s: line %d: unterminated identifier", lx->name, lx->tline);
            lx->tp = lx->p + 1;
            lx->tn = (size_t)(q - lx->tp);
            lx->p = q + 1;
            lx->kind = TK_WORD;
            return 0;
        }
        while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) || *lx->p == '_'))
            lx->p++;
        lx->kind = TK_WORD;
        lx->tn = (size_t)(lx->p - lx->tp);
        if (lx->tn == 4 && !strncasecmp(lx->tp, "NULL", 4))
            lx->kind = TK_NULL;
        return 0;
    } else if (strchr("(),;", c)) {
        lx->p++;
        lx->kind = TK_PUNCT;
    } else {
        return lvd_errf(lx->err, "%s: line %d: unexpected character '%c' (not llama-bench -o sql output?)",
                        lx->name, lx->tline, isprint(c) ? c : '?');
    }
    lx->tn = (size_t)(lx->p - lx->tp);
    return 0;
}

static int is_word(const sql_lex *lx, const char *w)
{
    return lx->kind == TK_WORD && lx->tn == strlen(w) && !strncasecmp(lx->tp, w, lx->tn);
}

static int is_punct(const sql_lex *lx, char c)
{
    return lx->kind == TK_PUNCT && *lx->tp == c;
}

static int lex_expect(sql_lex *lx, int ok, const char *what)
{
    if (ok)
        return 0;
    if (lx->kind == TK_EOF)
        return lvd_errf(lx->err, "%s: line %d: output ends inside a statement, expected %s (truncated?)",
                        lx->name, lx->tline, what);
    return lvd_errf(lx->err, "%s: line %d: expected %s, found '%.*s'", lx->name, lx->tline, what,
                    bench_snippet_len(lx->tp, lx->tp + lx->tn), lx->tp);
}

/* Column names (and, for CREATE TABLE, their declared types). */
typedef struct sql_cols {
    char **name;
    char **type;   /* "INTEGER", "REAL", "TEXT" or "" */
    size_t n, cap;
} sql_cols;

static void cols_add(sql_cols *c, const char *name, size_t nlen, const char *type, size_t tlen)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->name = lvd_xrealloc(c->name, c->cap * sizeof *c->name);
        c->type = lvd_xrealloc(c->type, c->cap * sizeof *c->type);
    }
    c->name[c->n] = lvd_xstrndup(name, nlen);
    c->type[c->n] = lvd_xstrndup(type, tlen);
    c->n++;
}

static void cols_free(sql_cols *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->name[i]);
        free(c->type[i]);
    }
    free(c->name);
    free(c->type);
    memset(c, 0, sizeof *c);
}

/* CREATE TABLE [IF NOT EXISTS] t (col TYPE ..., ...) ; -- after CREATE. */
static int sql_create(sql_lex *lx, sql_cols *table)
{
    cols_free(table);
    if (lex_next(lx) || lex_expect(lx, is_word(lx, "TABLE"), "TABLE") || lex_next(lx))
        return -1;
    if (is_word(lx, "IF")) {
        if (lex_next(lx) || lex_expect(lx, is_word(lx, "NOT"), "NOT") || lex_next(lx) ||
            lex_expect(lx, is_word(lx, "EXISTS"), "EXISTS") || lex_next(lx))
            return -1;
    }
    if (lex_expect(lx, lx->kind == TK_WORD, "a table name") || lex_next(lx) ||
        lex_expect(lx, is_punct(lx, '('), "'('"))
        return -1;
    for (;;) {
        if (lex_next(lx) || lex_expect(lx, lx->kind == TK_WORD, "a column name"))
            return -1;
        const char *cn = lx->tp;
        size_t cl = lx->tn;
        if (lex_next(lx))
            return -1;
        const char *ty = "";
        size_t tl = 0;
        if (lx->kind == TK_WORD) {
            ty = lx->tp;
            tl = lx->tn;
        }
        cols_add(table, cn, cl, ty, tl);
        /* Skip constraints up to the next ',' or ')'. */
        while (lx->kind != TK_EOF && !is_punct(lx, ',') && !is_punct(lx, ')'))
            if (lex_next(lx))
                return -1;
        if (lex_expect(lx, lx->kind != TK_EOF, "',' or ')'"))
            return -1;
        if (is_punct(lx, ')'))
            break;
    }
    if (lex_next(lx) || lex_expect(lx, is_punct(lx, ';'), "';'"))
        return -1;
    return 0;
}

static const char *col_type(const sql_cols *table, const char *col)
{
    for (size_t i = 0; i < table->n; i++)
        if (!strcmp(table->name[i], col))
            return table->type[i];
    return "";
}

/* Adds the current value token to o under col, typed by the declared type. */
static void add_value(sql_lex *lx, cJSON *o, const char *col, const char *type)
{
    if (lx->kind == TK_NULL) {
        cJSON_AddNullToObject(o, col);
        return;
    }
    char *raw = lx->kind == TK_STRING ? lvd_xstrdup(lvd_sb_str(&lx->str)) : lvd_xstrndup(lx->tp, lx->tn);
    int64_t i;
    double d;
    int numeric_col = !strcasecmp(type, "INTEGER") || !strcasecmp(type, "REAL");
    if (!strcasecmp(type, "INTEGER") && lvd_parse_i64(raw, &i) == 0)
        cJSON_AddNumberToObject(o, col, (double)i);
    else if ((numeric_col || (!*type && lx->kind == TK_NUMBER)) && lvd_parse_double(raw, &d) == 0)
        cJSON_AddNumberToObject(o, col, d);
    else
        cJSON_AddStringToObject(o, col, raw);
    free(raw);
}

/* INSERT INTO t [(cols)] VALUES (v, ...)[, (...)] ; -- after INSERT. */
static int sql_insert(sql_lex *lx, const sql_cols *table, bench_rows *out, size_t *cap)
{
    sql_cols cols = {0};
    int ret = -1;
    int line = lx->tline;
    if (lex_next(lx) || lex_expect(lx, is_word(lx, "INTO"), "INTO") || lex_next(lx) ||
        lex_expect(lx, lx->kind == TK_WORD, "a table name") || lex_next(lx))
        goto out;
    if (is_punct(lx, '(')) {
        for (;;) {
            if (lex_next(lx) || lex_expect(lx, lx->kind == TK_WORD, "a column name"))
                goto out;
            cols_add(&cols, lx->tp, lx->tn, "", 0);
            if (lex_next(lx) || lex_expect(lx, is_punct(lx, ',') || is_punct(lx, ')'), "',' or ')'"))
                goto out;
            if (is_punct(lx, ')'))
                break;
        }
        if (lex_next(lx))
            goto out;
    } else {
        if (table->n == 0) {
            lvd_errf(lx->err, "%s: line %d: INSERT without a column list and no CREATE TABLE before it",
                     lx->name, line);
            goto out;
        }
        for (size_t i = 0; i < table->n; i++)
            cols_add(&cols, table->name[i], strlen(table->name[i]), "", 0);
    }
    if (lex_expect(lx, is_word(lx, "VALUES"), "VALUES"))
        goto out;
    for (;;) {
        int tuple_line = lx->tline;
        if (lex_next(lx) || lex_expect(lx, is_punct(lx, '('), "'('"))
            goto out;
        cJSON *o = cJSON_CreateObject();
        size_t k = 0;
        for (;;) {
            if (lex_next(lx) || lex_expect(lx, lx->kind == TK_STRING || lx->kind == TK_NUMBER ||
                                                   lx->kind == TK_NULL, "a value")) {
                cJSON_Delete(o);
                goto out;
            }
            if (k < cols.n)
                add_value(lx, o, cols.name[k], col_type(table, cols.name[k]));
            k++;
            if (lex_next(lx) || lex_expect(lx, is_punct(lx, ',') || is_punct(lx, ')'), "',' or ')'")) {
                cJSON_Delete(o);
                goto out;
            }
            if (is_punct(lx, ')'))
                break;
        }
        if (k != cols.n) {
            cJSON_Delete(o);
            lvd_errf(lx->err, "%s: line %d: %zu values for %zu columns", lx->name, tuple_line, k, cols.n);
            goto out;
        }
        char where[32];
        snprintf(where, sizeof where, "line %d", tuple_line);
        int rc = bench_rows_add_object(out, cap, o, lx->name, where, lx->err);
        cJSON_Delete(o);
        if (rc || lex_next(lx))
            goto out;
        if (is_punct(lx, ';'))
            break;
        if (lex_expect(lx, is_punct(lx, ','), "',' or ';'"))
            goto out;
    }
    ret = 0;
out:
    cols_free(&cols);
    return ret;
}

int bench_parse_sql(const char *text, size_t len, const char *name, bench_rows *out, lvd_err *err)
{
    sql_lex lx = {.p = text, .end = text + len, .line = 1, .name = name, .err = err};
    sql_cols table = {0};
    size_t cap = 0;
    int ret = -1;
    for (;;) {
        if (lex_next(&lx))
            goto out;
        if (lx.kind == TK_EOF)
            break;
        if (is_punct(&lx, ';'))
            continue;
        if (is_word(&lx, "CREATE")) {
            if (sql_create(&lx, &table))
                goto out;
        } else if (is_word(&lx, "INSERT")) {
            if (sql_insert(&lx, &table, out, &cap))
                goto out;
        } else if (is_word(&lx, "BEGIN") || is_word(&lx, "COMMIT") || is_word(&lx, "END")) {
            do {
                if (lex_next(&lx))
                    goto out;
            } while (lx.kind != TK_EOF && !is_punct(&lx, ';'));
        } else {
            lex_expect(&lx, 0, "CREATE TABLE or INSERT INTO");
            goto out;
        }
    }
    ret = 0;
out:
    cols_free(&table);
    lvd_sb_free(&lx.str);
    return ret;
}
