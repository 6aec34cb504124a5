/* fitprint.c: running llama-fit-params --fit-print and reading its lines
 * (see fitprint.h). */
#include "engine/fitprint.h"

#include "common/proc.h"
#include "engine/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One "NAME MiB MiB MiB" line into *row; -1 when it is not one. */
static int parse_row(const char *line, size_t len, engine_fitprint_row *row)
{
    char buf[256];
    if (len >= sizeof buf)
        return -1;
    memcpy(buf, line, len);
    buf[len] = '\0';
    char name[64];
    long long m, c, k;
    int used = 0;
    if (sscanf(buf, "%63s %lld %lld %lld %n", name, &m, &c, &k, &used) != 4 || buf[used] != '\0' || m < 0 ||
        c < 0 || k < 0)
        return -1;
    snprintf(row->name, sizeof row->name, "%s", name);
    row->model_mib = m;
    row->context_mib = c;
    row->compute_mib = k;
    return 0;
}

int engine_fitprint_parse(const char *text, engine_fitprint *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    for (const char *s = text ? text : ""; *s;) {
        const char *e = strchr(s, '\n');
        size_t whole = e ? (size_t)(e - s) : strlen(s), len = whole;
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
            len--;
        if (len) {
            engine_fitprint_row row;
            if (parse_row(s, len, &row) != 0)
                return lvd_errf(err, "llama-fit-params --fit-print: not 'NAME MiB MiB MiB': '%.*s'",
                                (int)(len > 120 ? 120 : len), s);
            if (out->n == ENGINE_FITPRINT_MAX_ROWS)
                return lvd_errf(err, "llama-fit-params --fit-print: more than %d rows", ENGINE_FITPRINT_MAX_ROWS);
            out->rows[out->n++] = row;
        }
        s = e ? e + 1 : s + whole; /* past a last line of blanks too */
    }
    if (!out->n || strcmp(out->rows[out->n - 1].name, "Host"))
        return lvd_errf(err, "llama-fit-params --fit-print printed no Host line");
    return 0;
}

const engine_fitprint_row *engine_fitprint_row_of(const engine_fitprint *fp, const char *name)
{
    for (size_t i = 0; i < fp->n; i++)
        if (!strcmp(fp->rows[i].name, name))
            return &fp->rows[i];
    return NULL;
}

int engine_fit_params_exec(const engine_run *r, const char *env, int (*parse)(const char *, void *, lvd_err *),
                           void *arg, lvd_err *err)
{
    engine_argv cmd;
    if (engine_argv_build(r, &cmd, err) != 0)
        return -1;
    size_t ne = 0;
    char **envv = env && *env ? lvd_split(env, ' ', &ne) : NULL;
    proc_spec spec = {.argv = (const char *const *)cmd.argv, .env = (const char *const *)envv,
                      .timeout_ms = ENGINE_FITPRINT_TIMEOUT_MS};
    proc_result res;
    int rc = proc_run(&spec, &res, err);
    if (rc == 0) {
        char why[160];
        if (!proc_ok(&res))
            rc = lvd_errf(err, "llama-fit-params: %s", proc_describe(&res, why, sizeof why));
        else
            rc = parse(res.out.buf ? res.out.buf : "", arg, err);
        proc_result_free(&res);
    }
    lvd_strv_free(envv);
    engine_argv_free(&cmd);
    return rc;
}

static int parse_fitprint(const char *text, void *arg, lvd_err *err)
{
    return engine_fitprint_parse(text, arg, err);
}

int engine_fitprint_run(const char *dir, const engine_help *help, const char *model, const lvd_params *p,
                        uint32_t ctx, const char *env, engine_fitprint *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    char *bin = lvd_xasprintf("%s/llama-fit-params", dir);
    int rc;
    if (access(bin, X_OK) != 0) {
        rc = lvd_errf(err, "%s: no llama-fit-params beside the engine", dir);
    } else {
        engine_run r = {.kind = ENGINE_RUN_FIT_PRINT, .binary = bin, .model = model, .help = help, .ctx = ctx};
        r.params = *p;
        rc = engine_fit_params_exec(&r, env, parse_fitprint, out, err);
    }
    free(bin);
    return rc;
}
