/* runs_show.c: what lvd store runs prints: every run, one line per test,
 * with the median t/s of its kept samples (stats: the warm-up rule), or
 * llama-bench's own average for runs imported without samples; or JSON with
 * every sample (runs_show.h). Not for recording runs (runner.c, import.c). */
#include "bench/runs_show.h"

#include "common/cli.h"
#include "common/json.h"
#include "stats/stats.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- runs ----------------------------------------------------------------- */

/* Median t/s of the kept samples (stats_result_kept); NAN when there are none. */
static double median_ts(const lvd_result *r, size_t *used)
{
    double *v;
    *used = stats_result_kept(r, &v, NULL);
    double m = stats_median(v, *used);
    free(v);
    return m;
}

/* llama-bench's own average, for results imported without samples (-o sql). */
static double reported_avg_ts(const lvd_result *r)
{
    cJSON *o = r->reported_json ? cJSON_Parse(r->reported_json) : NULL;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "avg_ts");
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    cJSON_Delete(o);
    return d;
}

static const char *engine_name(const lvd_engine *v, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id)
            return v[i].name;
    return "?";
}

static cJSON *result_json(const lvd_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "test", r->test);
    cJSON_AddNumberToObject(o, "n_prompt", r->n_prompt);
    cJSON_AddNumberToObject(o, "n_gen", r->n_gen);
    cJSON_AddNumberToObject(o, "n_depth", r->n_depth);
    cJSON_AddStringToObject(o, "backends", r->backends);
    size_t used;
    double med = median_ts(r, &used);
    cJSON_AddItemToObject(o, "median_ts", lvd_json_num(med));
    double avg = reported_avg_ts(r);
    cJSON_AddItemToObject(o, "reported_avg_ts", lvd_json_num(avg));
    cJSON_AddNumberToObject(o, "n", (double)r->n);
    cJSON *ts = cJSON_AddArrayToObject(o, "samples_ts");
    cJSON *ns = cJSON_AddArrayToObject(o, "samples_ns");
    cJSON *wu = cJSON_AddArrayToObject(o, "warmup");
    for (size_t i = 0; i < r->n; i++) {
        cJSON_AddItemToArray(ts, cJSON_CreateNumber(r->ts[i]));
        cJSON_AddItemToArray(ns, r->ns && r->ns[i] >= 0 ? cJSON_CreateNumber((double)r->ns[i]) : cJSON_CreateNull());
        cJSON_AddItemToArray(wu, cJSON_CreateBool(r->warmup && r->warmup[i]));
    }
    return o;
}

static cJSON *run_json(const lvd_run *r, const char *engine)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "id", (double)r->id);
    cJSON_AddNumberToObject(o, "engine_id", (double)r->engine_id);
    cJSON_AddStringToObject(o, "engine", engine);
    cJSON_AddStringToObject(o, "artifact", r->artifact);
    cJSON_AddStringToObject(o, "host", r->host);
    cJSON_AddItemToObject(o, "session", lvd_json_str(r->session));
    cJSON_AddStringToObject(o, "arm_key", r->arm_key);
    cJSON_AddStringToObject(o, "binary", r->binary);
    cJSON_AddStringToObject(o, "build", r->build);
    cJSON_AddItemToObject(o, "build_commit", lvd_json_str(r->build_commit));
    cJSON_AddNumberToObject(o, "build_number", (double)r->build_number);
    cJSON_AddStringToObject(o, "status", r->status);
    cJSON_AddItemToObject(o, "reason", lvd_json_str(r->reason));
    cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
    cJSON_AddNumberToObject(o, "started_at", (double)r->started_at);
    cJSON_AddNumberToObject(o, "wall_ms", (double)r->wall_ms);
    cJSON_AddStringToObject(o, "source", r->source);
    cJSON *res = cJSON_AddArrayToObject(o, "results");
    for (size_t i = 0; i < r->n_results; i++)
        cJSON_AddItemToArray(res, result_json(&r->results[i]));
    return o;
}

static void run_rows(const lvd_run *r, const char *engine, int *footnote)
{
    if (r->n_results == 0)
        printf("%-5lld %-16s %-14s %12s %4s  %-11s %s\n", (long long)r->id, engine, "-", "-", "0", r->status,
               r->arm_key);
    for (size_t i = 0; i < r->n_results; i++) {
        size_t used;
        double med = median_ts(&r->results[i], &used);
        char ts[32];
        if (!isnan(med)) {
            snprintf(ts, sizeof ts, "%.2f", med);
        } else {
            double avg = reported_avg_ts(&r->results[i]);
            snprintf(ts, sizeof ts, isnan(avg) ? "-" : "%.2f*", avg);
            *footnote |= !isnan(avg);
        }
        printf("%-5lld %-16s %-14s %12s %4zu  %-11s %s\n", (long long)r->id, engine, r->results[i].test, ts, used,
               r->status, r->arm_key);
    }
}

int bench_runs_show(const char *tool, store *s, const bench_runs_filter *o)
{
    lvd_err err = {0};
    lvd_engine *engines;
    size_t ne;
    if (store_engine_list_host(s, "*", &engines, &ne, &err)) /* every host's runs are named */
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    store_run_filter f = {.artifact = o->artifact, .host = o->host, .with_samples = 1, .limit = o->limit};
    int ret = LVD_EXIT_OK;
    if (o->engine) { /* a name is a host's: --host's, else this machine's */
        for (size_t i = 0; i < ne; i++)
            if (!strcmp(engines[i].name, o->engine) && engines[i].host && !strcmp(engines[i].host, lvd_hostname()))
                f.engine_id = engines[i].id;
        if (!f.engine_id) {
            lvd_error(tool, "no engine named '%s' in %s", o->engine, store_path(s));
            store_engine_list_free(engines, ne);
            return LVD_EXIT_USAGE;
        }
    }
    lvd_run *v;
    size_t n;
    if (store_run_list(s, &f, &v, &n, &err)) {
        store_engine_list_free(engines, ne);
        return lvd_tool_fail(tool, &err, LVD_EXIT_STORE);
    }
    if (o->json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, run_json(&v[i], engine_name(engines, ne, v[i].engine_id)));
        lvd_json_emit(stdout, arr);
    } else if (n == 0) {
        printf("no runs\n");
    } else {
        int footnote = 0;
        printf("%-5s %-16s %-14s %12s %4s  %-11s %s\n", "ID", "ENGINE", "TEST", "T/S", "N", "STATUS", "ARM");
        for (size_t i = 0; i < n; i++)
            run_rows(&v[i], engine_name(engines, ne, v[i].engine_id), &footnote);
        if (footnote)
            printf("* llama-bench's average: imported without samples (-o sql)\n");
    }
    store_run_list_free(v, n);
    store_engine_list_free(engines, ne);
    return ret;
}

