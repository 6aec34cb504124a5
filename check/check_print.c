/* check_print.c: a check report as lvd-check shows it (see check.h): the
 * table with its tolerances line, the JSON of the same, and the exit code.
 * Not for running or importing checks (check.c, check_import.c). */
#include "check/check.h"

#include "common/cli.h"
#include "common/json.h"
#include "engine/visibility.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void fmt_num(char *buf, size_t len, const char *fmt, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, fmt, v);
}

void check_print(FILE *f, const check_report *r, const check_opts *o)
{
    int we = 6, wd = 6;
    for (size_t i = 0; i < r->n; i++) {
        int l = (int)strlen(r->items[i].engine);
        we = l > we ? l : we;
        l = (int)strlen(r->items[i].check.device);
        wd = l > wd ? l : wd;
    }
    fprintf(f, "%-*s %-*s %-8s %-6s %10s %11s %14s %10s  %s\n", we, "ENGINE", wd, "DEVICE", "BACKEND",
            "STATUS", "MEAN KLD", "SAME TOP P", "PPL", "PPL RATIO", "REASON");
    for (size_t i = 0; i < r->n; i++) {
        const check_item *it = &r->items[i];
        const lvd_check *c = &it->check;
        char kld[32], top[32], ppl[32], ratio[32];
        fmt_num(kld, sizeof kld, "%.6f", c->mean_kld);
        fmt_num(top, sizeof top, "%.3f %%", c->same_top_p);
        fmt_num(ppl, sizeof ppl, "%.4f", c->ppl);
        fmt_num(ratio, sizeof ratio, "%.5f", c->ppl_ratio);
        const char *color = !strcmp(c->status, "pass") ? "\033[1;32m"
                            : !strcmp(c->status, "base") ? ""
                                                         : "\033[1;31m";
        fprintf(f, "%-*s %-*s %-8s %s%-6s%s %10s %11s %14s %10s  %s\n", we, it->engine, wd,
                *c->device ? c->device : "-", it->backend, lvd_ansi(f, color), c->status,
                lvd_ansi(f, "\033[0m"), kld, top, ppl, ratio,
                c->reason ? c->reason : (it->reference ? "the CPU reference" : ""));
    }
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].left_out)
            fprintf(f, "left out: %s %s: %s\n", r->items[i].engine,
                    *r->items[i].check.device ? r->items[i].check.device : "-", r->items[i].left_out);
    for (size_t i = 0; i < r->n_skipped; i++)
        fprintf(f, "skipped: %s\n", r->skipped[i]);
    fprintf(f, "pass: mean KLD <= %g and |PPL ratio - 1| <= %g", o->kld_max, o->ppl_tol);
    if (o->top_p_min >= 0)
        fprintf(f, " and same top p >= %g %%", o->top_p_min);
    if (o->text)
        fprintf(f, " (text %s, -c %d, %d chunks)", o->text, CHECK_CTX, CHECK_CHUNKS);
    else
        fprintf(f, " (imported llama-perplexity captures)");
    fprintf(f, "; %zu pass, %zu fail, %zu error\n", r->n_pass, r->n_fail, r->n_error);
}

cJSON *check_json(const check_report *r, const check_opts *o)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "model", lvd_json_str(o->model));
    cJSON_AddStringToObject(root, "artifact", o->artifact);
    cJSON_AddStringToObject(root, "host", o->host);
    cJSON_AddItemToObject(root, "text", lvd_json_str(o->text));
    cJSON *tol = cJSON_AddObjectToObject(root, "tolerances");
    cJSON_AddNumberToObject(tol, "kld_max", o->kld_max);
    cJSON_AddNumberToObject(tol, "ppl_tol", o->ppl_tol);
    cJSON_AddItemToObject(tol, "top_p_min", lvd_json_num_if(o->top_p_min >= 0, o->top_p_min));
    cJSON *arr = cJSON_AddArrayToObject(root, "checks");
    for (size_t i = 0; i < r->n; i++) {
        const check_item *it = &r->items[i];
        const lvd_check *c = &it->check;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "engine", it->engine);
        cJSON_AddNumberToObject(x, "engine_id", (double)it->engine_id);
        cJSON_AddItemToObject(x, "device", lvd_json_text(c->device));
        cJSON_AddStringToObject(x, "device_name", it->device_name);
        cJSON_AddStringToObject(x, "backend", it->backend);
        cJSON_AddItemToObject(x, "env", engine_visibility_json(c->env));
        cJSON_AddBoolToObject(x, "reference", it->reference);
        cJSON_AddStringToObject(x, "status", c->status);
        cJSON_AddItemToObject(x, "mean_kld", lvd_json_num(c->mean_kld));
        cJSON_AddItemToObject(x, "same_top_p", lvd_json_num(c->same_top_p));
        cJSON_AddItemToObject(x, "ppl", lvd_json_num(c->ppl));
        cJSON_AddItemToObject(x, "ppl_base", lvd_json_num(c->ppl_base));
        cJSON_AddItemToObject(x, "ppl_ratio", lvd_json_num(c->ppl_ratio));
        cJSON_AddItemToObject(x, "reason", lvd_json_str(c->reason));
        if (it->left_out) /* only then: every other item stays as it was */
            cJSON_AddStringToObject(x, "left_out", it->left_out);
        cJSON_AddItemToArray(arr, x);
    }
    cJSON *sk = cJSON_AddArrayToObject(root, "skipped");
    for (size_t i = 0; i < r->n_skipped; i++)
        cJSON_AddItemToArray(sk, cJSON_CreateString(r->skipped[i]));
    cJSON_AddNumberToObject(root, "pass", (double)r->n_pass);
    cJSON_AddNumberToObject(root, "fail", (double)r->n_fail);
    cJSON_AddNumberToObject(root, "error", (double)r->n_error);
    return root;
}

int check_exit(const check_report *r)
{
    if (!r->reference_ok)
        return LVD_EXIT_FAIL;
    return r->n_fail || r->n_error || r->n_skipped ? LVD_EXIT_PARTIAL : LVD_EXIT_OK;
}
