/* benchout.c: the llama-bench output parser (see benchout.h). Each format is
 * turned into cJSON objects shaped as `-o json` prints them; one function maps
 * such an object to a bench_row, so every format lands in the same record.
 * Not for running llama-bench or judging the numbers. */
#include "bench/benchout.h"

#include "select/stats.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *bench_format_name(bench_format f)
{
    switch (f) {
    case BENCH_FMT_JSON: return "json";
    case BENCH_FMT_JSONL: return "jsonl";
    case BENCH_FMT_SQL: return "sql";
    default: return "auto";
    }
}

int bench_format_parse(const char *s, bench_format *out)
{
    static const bench_format all[] = {BENCH_FMT_AUTO, BENCH_FMT_JSON, BENCH_FMT_JSONL, BENCH_FMT_SQL};
    for (size_t i = 0; i < LVD_ARRAY_LEN(all); i++)
        if (!strcmp(s, bench_format_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}

void bench_test_name(int n_prompt, int n_gen, int n_depth, char *buf, size_t len)
{
    int w;
    if (n_prompt > 0 && n_gen == 0)
        w = snprintf(buf, len, "pp%d", n_prompt);
    else if (n_gen > 0 && n_prompt == 0)
        w = snprintf(buf, len, "tg%d", n_gen);
    else
        w = snprintf(buf, len, "pp%d+tg%d", n_prompt, n_gen);
    if (n_depth > 0 && w >= 0 && (size_t)w < len)
        snprintf(buf + w, len - (size_t)w, "@d%d", n_depth);
}

int bench_result_gpu_ignored(const lvd_result *r)
{
    if (r->rep_ngl <= 0 || !r->backends[0])
        return 0;
    /* "CPU", "BLAS", "CPU,BLAS": no backend that could hold a layer. */
    size_t n;
    char **v = lvd_split(r->backends, ',', &n);
    int cpu_only = 1;
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(v[i], "CPU") && strcasecmp(v[i], "BLAS"))
            cpu_only = 0;
    lvd_strv_free(v);
    return cpu_only;
}

int bench_result_samples_valid(const lvd_result *r)
{
    if (r->n == 0 || !r->ts)
        return 0;
    for (size_t i = 0; i < r->n; i++)
        if (!isfinite(r->ts[i]) || r->ts[i] <= 0)
            return 0;
    return 1;
}

void bench_result_flag_warmup(lvd_result *r)
{
    free(r->warmup);
    r->warmup = lvd_xcalloc(r->n ? r->n : 1, 1);
    if (!bench_result_samples_valid(r))
        return;
    size_t drop = sel_warmup(r->ts, r->n);
    for (size_t k = 0; k < drop; k++)
        r->warmup[k] = 1;
}

/* --- reading fields of one object ------------------------------------------ */

/* 1 when key holds an integer (number, numeric string, or bool), 0 when absent
 * or null, -1 when it holds something else. */
static int obj_i64(const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsBool(v)) {
        *out = cJSON_IsTrue(v) ? 1 : 0;
        return 1;
    }
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d != floor(d) || d < -9.2e18 || d > 9.2e18)
            return -1;
        *out = (int64_t)d;
        return 1;
    }
    if (cJSON_IsString(v) && lvd_parse_i64(v->valuestring, out) == 0)
        return 1;
    return -1;
}

static int obj_double(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v || cJSON_IsNull(v))
        return 0;
    if (cJSON_IsNumber(v)) {
        *out = v->valuedouble;
        return 1;
    }
    if (cJSON_IsString(v) && lvd_parse_double(v->valuestring, out) == 0)
        return 1;
    return -1;
}

static const char *obj_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void copy_str(char *buf, size_t len, const char *s)
{
    snprintf(buf, len, "%s", s ? s : "");
}

/* An int field that must fit an int; absent leaves *out at dflt. */
static int field_int(const cJSON *o, const char *key, int dflt, int *out, const char *name,
                     const char *where, lvd_err *err)
{
    int64_t v;
    int rc = obj_i64(o, key, &v);
    if (rc < 0 || (rc == 1 && (v < -2147483647 || v > 2147483647)))
        return lvd_errf(err, "%s: %s: \"%s\" is not an integer", name, where, key);
    *out = rc == 1 ? (int)v : dflt;
    return 0;
}

static int64_t parse_test_time(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!end || (*end && strcmp(end, "Z")))
        return 0;
    time_t t = timegm(&tm);
    return t < 0 ? 0 : (int64_t)t;
}

/* Reads samples_ns / samples_ts (both, or samples_ts alone) into r. */
static int read_samples(const cJSON *o, lvd_result *r, const char *name, const char *where, lvd_err *err)
{
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(o, "samples_ts");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(o, "samples_ns");
    if (!ts && !ns)
        return 0;
    if (!cJSON_IsArray(ts) || (ns && !cJSON_IsArray(ns)))
        return lvd_errf(err, "%s: %s: samples_ts/samples_ns are not arrays of numbers", name, where);
    size_t n = (size_t)cJSON_GetArraySize(ts);
    if (ns && (size_t)cJSON_GetArraySize(ns) != n)
        return lvd_errf(err, "%s: %s: %zu samples_ts but %d samples_ns", name, where, n,
                        cJSON_GetArraySize(ns));
    if (n == 0)
        return 0;
    r->ts = lvd_xcalloc(n, sizeof *r->ts);
    r->warmup = lvd_xcalloc(n, sizeof *r->warmup);
    if (ns)
        r->ns = lvd_xcalloc(n, sizeof *r->ns);
    r->n = n;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, ts) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || e->valuedouble < 0)
            return lvd_errf(err, "%s: %s: samples_ts[%zu] is not a throughput", name, where, i);
        r->ts[i++] = e->valuedouble;
    }
    i = 0;
    cJSON_ArrayForEach(e, ns) {
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 0 ||
            e->valuedouble > 9.2e18)
            return lvd_errf(err, "%s: %s: samples_ns[%zu] is not a duration in ns", name, where, i);
        r->ns[i++] = (int64_t)e->valuedouble;
    }
    return 0;
}

/* Maps one llama-bench object (as `-o json` prints it) to row. */
static int row_from_object(const cJSON *o, const char *name, const char *where, bench_row *row,
                           lvd_err *err)
{
    memset(row, 0, sizeof *row);
    row->model_size = -1;
    row->avg_ts = row->stddev_ts = NAN;
    lvd_result *r = &row->result;
    if (!cJSON_IsObject(o))
        return lvd_errf(err, "%s: %s: not a JSON object (not llama-bench output?)", name, where);
    int64_t np, ng;
    if (obj_i64(o, "n_prompt", &np) != 1 || obj_i64(o, "n_gen", &ng) != 1 || np < 0 || ng < 0 ||
        np > 2147483647 || ng > 2147483647)
        return lvd_errf(err, "%s: %s: no valid n_prompt and n_gen (not llama-bench output?)", name, where);
    r->n_prompt = (int)np;
    r->n_gen = (int)ng;
    if (field_int(o, "n_depth", 0, &r->n_depth, name, where, err) ||
        field_int(o, "n_gpu_layers", -1, &r->rep_ngl, name, where, err) ||
        field_int(o, "flash_attn", -1, &r->rep_fa, name, where, err) ||
        field_int(o, "n_ubatch", 0, &r->rep_ubatch, name, where, err) ||
        field_int(o, "n_cpu_moe", 0, &r->rep_n_cpu_moe, name, where, err) ||
        field_int(o, "n_threads", 0, &r->rep_threads, name, where, err))
        return -1;
    bench_test_name(r->n_prompt, r->n_gen, r->n_depth, r->test, sizeof r->test);
    copy_str(r->backends, sizeof r->backends, obj_str(o, "backends"));
    copy_str(r->rep_type_k, sizeof r->rep_type_k, obj_str(o, "type_k"));
    copy_str(r->rep_type_v, sizeof r->rep_type_v, obj_str(o, "type_v"));
    copy_str(row->devices, sizeof row->devices, obj_str(o, "devices"));
    copy_str(row->test_time, sizeof row->test_time, obj_str(o, "test_time"));
    row->test_epoch = row->test_time[0] ? parse_test_time(row->test_time) : 0;
    const char *s;
    if ((s = obj_str(o, "build_commit")))
        row->build_commit = lvd_xstrdup(s);
    if ((s = obj_str(o, "model_filename")))
        row->model_filename = lvd_xstrdup(s);
    if ((s = obj_str(o, "model_type")))
        row->model_type = lvd_xstrdup(s);
    if (obj_i64(o, "build_number", &row->build_number) < 0)
        return lvd_errf(err, "%s: %s: \"build_number\" is not an integer", name, where);
    if (obj_i64(o, "model_size", &row->model_size) < 0)
        return lvd_errf(err, "%s: %s: \"model_size\" is not an integer", name, where);
    if (obj_double(o, "avg_ts", &row->avg_ts) < 0 || obj_double(o, "stddev_ts", &row->stddev_ts) < 0)
        return lvd_errf(err, "%s: %s: \"avg_ts\"/\"stddev_ts\" are not numbers", name, where);
    if (read_samples(o, r, name, where, err))
        return -1;
    if (r->n == 0 && !isfinite(row->avg_ts))
        return lvd_errf(err, "%s: %s: %s has neither samples_ts nor avg_ts", name, where, r->test);
    r->reported_json = cJSON_PrintUnformatted(o);
    if (!r->reported_json)
        return lvd_errf(err, "%s: %s: cannot serialise the result", name, where);
    return 0;
}

static bench_row *rows_add(bench_rows *out, size_t *cap)
{
    if (out->n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        out->v = lvd_xrealloc(out->v, *cap * sizeof *out->v);
    }
    return &out->v[out->n++];
}

/* Converts o and appends it; on failure the half-built row is released. */
static int add_object(bench_rows *out, size_t *cap, const cJSON *o, const char *name,
                      const char *where, lvd_err *err)
{
    bench_row *row = rows_add(out, cap);
    if (row_from_object(o, name, where, row, err)) {
        bench_row_free(row);
        out->n--;
        return -1;
    }
    return 0;
}

static int line_of(const char *text, const char *pos)
{
    int line = 1;
    for (const char *p = text; p < pos; p++)
        line += *p == '\n';
    return line;
}

static int only_space(const char *p, const char *end)
{
    for (; p < end; p++)
        if (!isspace((unsigned char)*p))
            return 0;
    return 1;
}

/* How much of p (up to end) to quote in an error: at most 20 bytes, one line. */
static int snippet_len(const char *p, const char *end)
{
    int n = 0;
    while (p + n < end && n < 20 && p[n] != '\n' && p[n] != '\r' && p[n] != '\0')
        n++;
    return n;
}

/* Parses text[0..len) as one JSON value; describes a failure by line. */
static cJSON *parse_json(const char *text, size_t len, const char *name, int line0, lvd_err *err)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!v) {
        if (!end || end >= text + len || only_space(end, text + len))
            lvd_errf(err, "%s: line %d: JSON ends early (truncated output?)", name,
                     line0 + line_of(text, text + len) - 1);
        else
            lvd_errf(err, "%s: line %d: not valid JSON near '%.*s'", name, line0 + line_of(text, end) - 1,
                     snippet_len(end, text + len), end);
        return NULL;
    }
    if (end && !only_space(end, text + len)) {
        lvd_errf(err, "%s: line %d: unexpected text after the JSON value", name, line0 + line_of(text, end) - 1);
        cJSON_Delete(v);
        return NULL;
    }
    return v;
}

static int parse_json_array(const char *text, size_t len, const char *name, bench_rows *out, lvd_err *err)
{
    cJSON *arr = parse_json(text, len, name, 1, err);
    if (!arr)
        return -1;
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(arr);
        return lvd_errf(err, "%s: -o json output is one array of results, this is not", name);
    }
    size_t cap = 0, i = 0;
    const cJSON *o;
    int ret = 0;
    cJSON_ArrayForEach(o, arr) {
        char where[32];
        snprintf(where, sizeof where, "result %zu", ++i);
        if ((ret = add_object(out, &cap, o, name, where, err)))
            break;
    }
    cJSON_Delete(arr);
    return ret;
}

static int parse_jsonl(const char *text, size_t len, const char *name, bench_rows *out, lvd_err *err)
{
    size_t cap = 0;
    int line = 1;
    for (const char *p = text, *end = text + len; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (!only_space(p, eol)) {
            cJSON *o = parse_json(p, (size_t)(eol - p), name, line, err);
            if (!o)
                return -1;
            char where[32];
            snprintf(where, sizeof where, "line %d", line);
            int rc = add_object(out, &cap, o, name, where, err);
            cJSON_Delete(o);
            if (rc)
                return -1;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* --- -o sql ------------------------------------------------------------------
 * The statements llama-bench prints: CREATE TABLE IF NOT EXISTS llama_bench
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
                    snippet_len(lx->tp, lx->tp + lx->tn), lx->tp);
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
        int rc = add_object(out, cap, o, lx->name, where, lx->err);
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

static int parse_sql(const char *text, size_t len, const char *name, bench_rows *out, lvd_err *err)
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

/* --- entry points ------------------------------------------------------------ */

int bench_detect_format(const char *text, size_t len, const char *name, bench_format *out,
                        lvd_err *err)
{
    const char *p = text, *end = text + len;
    if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    while (p < end && isspace((unsigned char)*p))
        p++;
    size_t rest = (size_t)(end - p);
    if (rest == 0)
        return lvd_errf(err, "%s: empty (llama-bench printed nothing?)", name);
    if (*p == '[') {
        *out = BENCH_FMT_JSON;
        return 0;
    }
    if (*p == '{') {
        *out = BENCH_FMT_JSONL;
        return 0;
    }
    if ((rest >= 6 && !strncasecmp(p, "CREATE", 6)) || (rest >= 6 && !strncasecmp(p, "INSERT", 6)) ||
        (rest >= 5 && !strncasecmp(p, "BEGIN", 5)) || (rest >= 2 && !strncmp(p, "--", 2))) {
        *out = BENCH_FMT_SQL;
        return 0;
    }
    if (*p == '|')
        return lvd_errf(err, "%s: llama-bench markdown output (-o md) is rounded and has no samples; "
                        "re-run with -o json, -o jsonl or -o sql", name);
    if (rest >= 13 && !strncmp(p, "build_commit,", 13))
        return lvd_errf(err, "%s: llama-bench csv output (-o csv) cannot be imported; "
                        "re-run with -o json, -o jsonl or -o sql", name);
    if (len >= 16 && !memcmp(text, "SQLite format 3", 16))
        return lvd_errf(err, "%s: an SQLite database, not llama-bench -o sql text; "
                        "dump it with: sqlite3 FILE .dump", name);
    return lvd_errf(err, "%s: not llama-bench output (expected -o json, -o jsonl or -o sql)", name);
}

int bench_parse_rows(const char *text, size_t len, bench_format fmt, const char *name,
                     bench_rows *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    if (fmt == BENCH_FMT_AUTO && bench_detect_format(text, len, name, &fmt, err))
        return -1;
    out->format = fmt;
    int rc;
    switch (fmt) {
    case BENCH_FMT_JSON: rc = parse_json_array(text, len, name, out, err); break;
    case BENCH_FMT_JSONL: rc = parse_jsonl(text, len, name, out, err); break;
    case BENCH_FMT_SQL: rc = parse_sql(text, len, name, out, err); break;
    default: rc = lvd_errf(err, "%s: unknown format", name); break;
    }
    if (rc == 0 && out->n == 0)
        rc = lvd_errf(err, "%s: no results in this llama-bench %s output", name, bench_format_name(fmt));
    if (rc) {
        bench_rows_free(out);
        return -1;
    }
    return 0;
}

void bench_row_free(bench_row *row)
{
    if (!row)
        return;
    lvd_result_free(&row->result);
    free(row->build_commit);
    free(row->model_filename);
    free(row->model_type);
    memset(row, 0, sizeof *row);
}

void bench_rows_free(bench_rows *rows)
{
    if (!rows)
        return;
    for (size_t i = 0; i < rows->n; i++)
        bench_row_free(&rows->v[i]);
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

int bench_parse_output(const char *text, size_t len, const char *name, lvd_run *run_out,
                       lvd_err *err)
{
    bench_rows rows;
    if (bench_parse_rows(text, len, BENCH_FMT_AUTO, name, &rows, err))
        return -1;
    const bench_row *first = &rows.v[0];
    for (size_t i = 1; i < rows.n; i++) {
        const bench_row *r = &rows.v[i];
        if (r->build_number != first->build_number ||
            strcmp(r->build_commit ? r->build_commit : "", first->build_commit ? first->build_commit : "")) {
            lvd_errf(err, "%s: results of more than one build (%s %lld and %s %lld) in one invocation",
                     name, first->build_commit ? first->build_commit : "?", (long long)first->build_number,
                     r->build_commit ? r->build_commit : "?", (long long)r->build_number);
            bench_rows_free(&rows);
            return -1;
        }
    }
    run_out->results = lvd_xrealloc(run_out->results, (run_out->n_results + rows.n) * sizeof *run_out->results);
    for (size_t i = 0; i < rows.n; i++) {
        run_out->results[run_out->n_results++] = rows.v[i].result;
        memset(&rows.v[i].result, 0, sizeof rows.v[i].result);
    }
    free(run_out->build_commit);
    run_out->build_commit = first->build_commit ? lvd_xstrdup(first->build_commit) : NULL;
    run_out->build_number = first->build_number;
    bench_rows_free(&rows);
    return 0;
}
