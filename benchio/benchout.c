/* benchout.c: the llama-bench output parser (see benchout.h): the `-o json`
 * and `-o jsonl` readers, `-o sql` through SQLite (store/benchdb.h executes
 * the text into an in-memory database and hands back its rows), each result
 * mapped by benchrow.c so that every format lands in the same record; test
 * names, warm-up flags and the ignored -ngl. Not for finding the output
 * among log lines or detecting its format (benchfind.c), running llama-bench
 * or judging the numbers. */
#include "benchio/benchout_internal.h"

#include "stats/stats.h"
#include "store/benchdb.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *benchio_format_name(benchio_format f)
{
    switch (f) {
    case BENCHIO_FMT_JSON: return "json";
    case BENCHIO_FMT_JSONL: return "jsonl";
    case BENCHIO_FMT_SQL: return "sql";
    default: return "auto";
    }
}

int benchio_format_parse(const char *s, benchio_format *out)
{
    static const benchio_format all[] = {BENCHIO_FMT_AUTO, BENCHIO_FMT_JSON, BENCHIO_FMT_JSONL, BENCHIO_FMT_SQL};
    for (size_t i = 0; i < LVD_ARRAY_LEN(all); i++)
        if (!strcmp(s, benchio_format_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}

void benchio_test_name(int n_prompt, int n_gen, int n_depth, char *buf, size_t len)
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

int benchio_result_gpu_ignored(const lvd_result *r)
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

int benchio_result_samples_valid(const lvd_result *r)
{
    if (r->n == 0 || !r->ts)
        return 0;
    for (size_t i = 0; i < r->n; i++)
        if (!isfinite(r->ts[i]) || r->ts[i] <= 0)
            return 0;
    return 1;
}

/* The mean llama-bench reported for a result with no samples: avg_ts into
 * *ts (NAN when absent or not > 0), avg_ns into *ns (NAN when absent), from
 * one parse of the reported object. */
static void reported_means(const lvd_result *r, double *ts, double *ns)
{
    *ts = *ns = NAN;
    if (r->n != 0 || !r->reported_json)
        return;
    cJSON *o = cJSON_Parse(r->reported_json);
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "avg_ts");
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "avg_ns");
    if (cJSON_IsNumber(t) && isfinite(t->valuedouble) && t->valuedouble > 0)
        *ts = t->valuedouble;
    if (cJSON_IsNumber(d))
        *ns = d->valuedouble;
    cJSON_Delete(o);
}

int benchio_result_means_only(const lvd_result *r)
{
    double ts, ns;
    reported_means(r, &ts, &ns);
    return !isnan(ts);
}

int benchio_result_mean_as_sample(lvd_result *r)
{
    double ts, ns;
    reported_means(r, &ts, &ns);
    if (isnan(ts))
        return -1;
    r->n = 1;
    r->ts = lvd_xcalloc(1, sizeof *r->ts);
    r->ts[0] = ts;
    if (isfinite(ns) && ns > 0 && ns < 9.2e18) {
        r->ns = lvd_xcalloc(1, sizeof *r->ns);
        r->ns[0] = (int64_t)ns;
    }
    free(r->warmup);
    r->warmup = lvd_xcalloc(1, 1);
    return 0;
}

void benchio_result_flag_warmup(lvd_result *r)
{
    free(r->warmup);
    r->warmup = lvd_xcalloc(r->n ? r->n : 1, 1);
    if (!benchio_result_samples_valid(r))
        return;
    size_t drop = stats_warmup(r->ts, r->n);
    for (size_t k = 0; k < drop; k++)
        r->warmup[k] = 1;
}

static int line_of(const char *text, const char *pos)
{
    int line = 1;
    for (const char *p = text; p < pos; p++)
        line += *p == '\n';
    return line;
}

/* How much of p (up to end) to quote in an error: at most 20 bytes, one line. */
static int snippet_len(const char *p, const char *end)
{
    int n = 0;
    while (p + n < end && n < 20 && p[n] != '\n' && p[n] != '\r' && p[n] != '\0')
        n++;
    return n;
}

/* Parses the JSON value at the start of text[0..len) (line0: the line it
 * starts on); *rest is where it ends. Describes a failure by line. */
static cJSON *parse_json(const char *text, size_t len, const char *name, int line0, const char **rest,
                         lvd_err *err)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!v) {
        if (!end || end >= text + len || benchio_only_space(end, text + len))
            lvd_errf(err, "%s: line %d: JSON ends early (truncated output?)", name,
                     line0 + line_of(text, text + len) - 1);
        else
            lvd_errf(err, "%s: line %d: not valid JSON near '%.*s'", name, line0 + line_of(text, end) - 1,
                     snippet_len(end, text + len), end);
        return NULL;
    }
    *rest = end ? end : text + len;
    return v;
}

/* The rest of the line after a JSON value ([rest, eol)) must be blank. */
static int value_ends_line(const char *text, const char *rest, const char *eol, const char *name, int line0,
                           lvd_err *err)
{
    if (benchio_only_space(rest, eol))
        return 0;
    return lvd_errf(err, "%s: line %d: unexpected text after the JSON value", name, line0 + line_of(text, rest) - 1);
}

/* The lines after -o json's array: llama.cpp's log is skipped; another
 * JSON value is an error (two outputs in one file, or garbage). */
static int after_array(const char *text, const char *p, const char *end, const char *name, benchio_rows *out,
                       lvd_err *err)
{
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (value_ends_line(text, p, nl ? nl : end, name, 1, err))
        return -1;
    for (p = nl ? nl + 1 : end; p < end;) {
        nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end, *q = p;
        while (q < eol && isspace((unsigned char)*q))
            q++;
        if (q < eol && (*q == '[' || *q == '{'))
            return value_ends_line(text, q, eol, name, 1, err);
        if (q < eol)
            benchio_skip_line(out, p, eol);
        p = nl ? nl + 1 : end;
    }
    return 0;
}

static int parse_json_array(const char *text, size_t len, size_t start, const char *name, benchio_rows *out,
                            lvd_err *err)
{
    const char *rest;
    cJSON *arr = parse_json(text + start, len - start, name, line_of(text, text + start), &rest, err);
    if (!arr)
        return -1;
    if (!cJSON_IsArray(arr)) {
        cJSON_Delete(arr);
        return lvd_errf(err, "%s: -o json output is one array of results, this is not", name);
    }
    int ret = after_array(text, rest, text + len, name, out, err);
    size_t cap = 0, i = 0;
    const cJSON *o;
    cJSON_ArrayForEach(o, arr) {
        if (ret)
            break;
        char where[32];
        snprintf(where, sizeof where, "result %zu", ++i);
        ret = benchio_rows_add_object(out, &cap, o, name, where, err);
    }
    cJSON_Delete(arr);
    return ret;
}

/* One result a line; a line that does not start with '{' is llama.cpp's log. */
static int parse_jsonl(const char *text, size_t len, size_t start, const char *name, benchio_rows *out,
                       lvd_err *err)
{
    size_t cap = 0;
    int line = line_of(text, text + start);
    for (const char *p = text + start, *end = text + len; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end, *q = p;
        while (q < eol && isspace((unsigned char)*q))
            q++;
        if (q < eol && *q != '{') {
            benchio_skip_line(out, p, eol);
        } else if (q < eol) {
            const char *rest;
            cJSON *o = parse_json(p, (size_t)(eol - p), name, line, &rest, err);
            if (!o)
                return -1;
            char where[32];
            snprintf(where, sizeof where, "line %d", line);
            int rc = value_ends_line(p, rest, eol, name, line, err) ||
                     benchio_rows_add_object(out, &cap, o, name, where, err);
            cJSON_Delete(o);
            if (rc)
                return -1;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
}

/* What the rows of -o sql, executed by SQLite, are added to. */
typedef struct sql_rows {
    benchio_rows *out;
    size_t cap;
    const char *name;
    lvd_err *err;
} sql_rows;

static int sql_row(const cJSON *row, size_t i, void *ctx)
{
    sql_rows *c = ctx;
    char where[32];
    snprintf(where, sizeof where, "result %zu", i + 1);
    return benchio_rows_add_object(c->out, &c->cap, row, c->name, where, c->err);
}

static int parse_sql(const char *text, size_t len, size_t start, const char *name, benchio_rows *out, lvd_err *err)
{
    sql_rows c = {.out = out, .name = name, .err = err};
    size_t tables;
    return store_llama_bench_sql_each(text + start, len - start, name, line_of(text, text + start), &tables,
                                      sql_row, &c, err);
}

/* --- entry points ------------------------------------------------------------ */

int benchio_parse_rows(const char *text, size_t len, benchio_format fmt, const char *name,
                     benchio_rows *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    size_t start;
    if (benchio_find_output(text, len, fmt, name, &fmt, &start, out, err))
        return -1;
    out->format = fmt;
    int rc;
    switch (fmt) {
    case BENCHIO_FMT_JSON: rc = parse_json_array(text, len, start, name, out, err); break;
    case BENCHIO_FMT_JSONL: rc = parse_jsonl(text, len, start, name, out, err); break;
    case BENCHIO_FMT_SQL: rc = parse_sql(text, len, start, name, out, err); break;
    default: rc = lvd_errf(err, "%s: unknown format", name); break;
    }
    if (rc == 0 && out->n == 0)
        rc = lvd_errf(err, "%s: no results in this llama-bench %s output", name, benchio_format_name(fmt));
    if (rc) {
        benchio_rows_free(out);
        return -1;
    }
    return 0;
}

void benchio_rows_free(benchio_rows *rows)
{
    if (!rows)
        return;
    for (size_t i = 0; i < rows->n; i++)
        benchio_row_free(&rows->v[i]);
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

int benchio_parse_output(const char *text, size_t len, const char *name, lvd_run *run_out,
                       lvd_err *err)
{
    benchio_rows rows;
    if (benchio_parse_rows(text, len, BENCHIO_FMT_AUTO, name, &rows, err))
        return -1;
    const benchio_row *first = &rows.v[0];
    for (size_t i = 1; i < rows.n; i++) {
        const benchio_row *r = &rows.v[i];
        if (r->build_number != first->build_number ||
            strcmp(r->build_commit ? r->build_commit : "", first->build_commit ? first->build_commit : "")) {
            lvd_errf(err, "%s: results of more than one build (%s %lld and %s %lld) in one invocation",
                     name, first->build_commit ? first->build_commit : "?", (long long)first->build_number,
                     r->build_commit ? r->build_commit : "?", (long long)r->build_number);
            benchio_rows_free(&rows);
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
    benchio_rows_free(&rows);
    return 0;
}
