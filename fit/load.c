/* load.c: one load of lvd fit (see load.h). Not for the search. */
#include "fit/load.h"

#include "common/proc.h"
#include "engine/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fit_load_cmd(const fit_target *t, uint32_t n_ctx, engine_argv *out, lvd_err *err)
{
    lvd_params p = t->params;
    if (!p.type_k[0]) /* each load names its cache types: the ceiling is theirs */
        snprintf(p.type_k, sizeof p.type_k, "f16");
    if (!p.type_v[0])
        snprintf(p.type_v, sizeof p.type_v, "f16");
    p.fa = -1; /* what a load passes of the placement: device, -ngl, -ncmoe, -ub, the cache types */
    p.threads = 0;
    p.split_mode[0] = p.tensor_split[0] = '\0';
    p.fit_target = p.fit_ctx = 0;
    engine_help help;
    engine_help_load(t->flags, &help);
    char *depth = lvd_xasprintf("%u", n_ctx > 1 ? n_ctx - 1 : 0);
    engine_run r = {.kind = ENGINE_RUN_FIT_LOAD, .binary = t->binary, .model = t->model, .params = p,
                    .help = t->flags ? &help : NULL, .n_prompt = "1", .n_gen = "1", .n_depth = depth, .reps = 1,
                    .no_warmup = 1};
    int rc = engine_argv_build(&r, out, err);
    free(depth);
    engine_help_free(&help);
    return rc;
}

char **fit_load_argv(const fit_target *t, uint32_t n_ctx)
{
    engine_argv a;
    lvd_err err = {{0}};
    if (fit_load_cmd(t, n_ctx, &a, &err) != 0)
        return NULL;
    char **v = a.argv;
    a.argv = NULL;
    engine_argv_free(&a);
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
    engine_argv cmd;
    if (fit_load_cmd(t, n_ctx, &cmd, err) != 0)
        return -1;
    if (cmd.note && !t->left_out[0]) /* the same for every load of t: said once */
        snprintf(t->left_out, sizeof t->left_out, "%s", cmd.note);
    proc_spec spec = {.argv = (const char *const *)cmd.argv, .timeout_ms = t->timeout_ms, .max_capture = 1 << 20};
    proc_result res;
    int rc = proc_run(&spec, &res, err);
    engine_argv_free(&cmd);
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
