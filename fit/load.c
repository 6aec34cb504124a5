/* load.c: one load of lvd fit (see load.h). Not for the search. */
#include "fit/load.h"

#include "common/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(char ***v, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void push(char ***v, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lvd_strv_vpushf(v, n, fmt, ap);
    va_end(ap);
}

char **fit_load_argv(const fit_target *t, uint32_t n_ctx)
{
    char **v = NULL;
    size_t n = 0;
    const lvd_params *p = &t->params;
    push(&v, &n, "%s", t->binary);
    push(&v, &n, "-m");
    push(&v, &n, "%s", t->model);
    push(&v, &n, "-d");
    push(&v, &n, "%u", n_ctx > 1 ? n_ctx - 1 : 0);
    for (const char *const *w = (const char *const[]){"-p", "1", "-n", "1", "-r", "1", "-o", "jsonl",
                                                     "--no-warmup", NULL};
         *w; w++)
        push(&v, &n, "%s", *w);
    if (p->device[0]) {
        push(&v, &n, "-dev");
        push(&v, &n, "%s", p->device);
    }
    if (p->ngl >= 0) {
        push(&v, &n, "-ngl");
        push(&v, &n, "%d", p->ngl);
    }
    if (p->n_cpu_moe > 0) {
        push(&v, &n, "-ncmoe");
        push(&v, &n, "%d", p->n_cpu_moe);
    }
    if (p->ubatch > 0) {
        push(&v, &n, "-ub");
        push(&v, &n, "%d", p->ubatch);
    }
    push(&v, &n, "-ctk");
    push(&v, &n, "%s", p->type_k[0] ? p->type_k : "f16");
    push(&v, &n, "-ctv");
    push(&v, &n, "%s", p->type_v[0] ? p->type_v : "f16");
    return v;
}

/* The line of stderr that says why a load died: the first naming an
 * allocation or memory failure, else the last "error" line, else "". */
static void why_of(const char *err, const char *outcome, char *buf, size_t len)
{
    static const char *const memory[] = {"failed to allocate", "out of memory", "insufficient memory",
                                         "ErrorOutOfDeviceMemory", NULL};
    const char *line = NULL;
    for (size_t i = 0; memory[i] && !line; i++)
        line = strstr(err, memory[i]);
    if (!line) {
        for (const char *p = strstr(err, "error"); p; p = strstr(p + 1, "error"))
            line = p;
    }
    if (!line) {
        snprintf(buf, len, "%s", outcome);
        return;
    }
    while (line > err && line[-1] != '\n')
        line--;
    int w = (int)strcspn(line, "\n");
    snprintf(buf, len, "%s: %.*s", outcome, w, line);
}

int fit_load(void *target, uint32_t n_ctx, int *fits, lvd_err *err)
{
    fit_target *t = target;
    char **argv = fit_load_argv(t, n_ctx);
    proc_spec spec = {.argv = (const char *const *)argv, .timeout_ms = t->timeout_ms, .max_capture = 1 << 20};
    proc_result res;
    int rc = proc_run(&spec, &res, err);
    lvd_strv_free(argv);
    if (rc != 0)
        return -1;
    char outcome[96];
    proc_describe(&res, outcome, sizeof outcome);
    if (!res.spawned) {
        lvd_errf(err, "%s: %s", t->binary, outcome);
        proc_result_free(&res);
        return -1;
    }
    *fits = proc_ok(&res) && strstr(lvd_sb_str(&res.out), "\"avg_ts\"") != NULL;

    if (!*fits)
        why_of(lvd_sb_str(&res.err), proc_ok(&res) ? "exit 0 without a result" : outcome, t->last_why,
               sizeof t->last_why);
    proc_result_free(&res);
    return 0;
}
