/* benchout.c: the llama-bench output parser (see benchout.h): format detection
 * (json, jsonl, sql; md and csv are recognised and refused), the `-o json` and
 * `-o jsonl` readers, and the one function that maps a cJSON object shaped as
 * `-o json` prints it to a bench_row, so every format lands in the same record.
 * Not for the `-o sql` lexer and parser (bench/benchsql.c), running llama-bench
 * or judging the numbers. */
#include "bench/benchout.h"
#include "bench/benchsql.h"

#include "stats/stats.h"

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
    size_t drop = stats_warmup(r->ts, r->n);
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
    int64_t t;
    return lvd_parse_utc(s, &t) == 0 && t > 0 ? t : 0;
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
    copy_str(row->gpu_info, sizeof row->gpu_info, obj_str(o, "gpu_info"));
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
    /* the sample arrays are the result's samples (stored once, in samples);
     * the rest of the object is kept as llama-bench printed it */
    cJSON *kept = cJSON_Duplicate(o, 1);
    cJSON_DeleteItemFromObjectCaseSensitive(kept, "samples_ns");
    cJSON_DeleteItemFromObjectCaseSensitive(kept, "samples_ts");
    r->reported_json = kept ? cJSON_PrintUnformatted(kept) : NULL;
    cJSON_Delete(kept);
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
int bench_rows_add_object(bench_rows *out, size_t *cap, const cJSON *o, const char *name,
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
int bench_snippet_len(const char *p, const char *end)
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
                     bench_snippet_len(end, text + len), end);
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
        if ((ret = bench_rows_add_object(out, &cap, o, name, where, err)))
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
            int rc = bench_rows_add_object(out, &cap, o, name, where, err);
            cJSON_Delete(o);
            if (rc)
                return -1;
        }
        p = nl ? nl + 1 : end;
    }
    return 0;
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
    case BENCH_FMT_SQL: rc = bench_parse_sql(text, len, name, out, err); break;
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
