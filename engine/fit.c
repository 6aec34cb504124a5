/* fit.c: see fit.h. */
#include "engine/fit.h"

#include "common/proc.h"
#include "engine/argv.h"
#include "engine/fitprint.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void engine_fit_plan_free(engine_fit_plan *p)
{
    free(p->ts);
    free(p->overrides);
    memset(p, 0, sizeof *p);
}

/* The words of line, double quotes grouping (and removed); malloc'd. */
static char **words_of(const char *line, size_t *n)
{
    char **v = NULL;
    *n = 0;
    const char *s = line;
    while (*s) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        lvd_sb w = {0};
        int quoted = 0;
        for (; *s && (quoted || (*s != ' ' && *s != '\t')); s++) {
            if (*s == '"')
                quoted = !quoted;
            else
                lvd_sb_addf(&w, "%c", *s);
        }
        lvd_strv_push(&v, n, lvd_xstrdup(w.len ? w.buf : ""));
        lvd_sb_free(&w);
    }
    lvd_strv_push(&v, n, NULL);
    (*n)--;
    return v;
}

/* Distinct blocks of "blk\.N\." entries whose buffer (after '=') is a CPU one. */
static int host_blocks(const char *ot)
{
    int seen[1024] = {0}, n = 0;
    size_t k;
    char **items = lvd_split(ot, ',', &k);
    for (size_t i = 0; i < k; i++) {
        const char *eq = strrchr(items[i], '='), *b = strstr(items[i], "blk\\.");
        if (!eq || strncmp(eq + 1, "CPU", 3) != 0 || !b || !isdigit((unsigned char)b[5]))
            continue;
        long blk = strtol(b + 5, NULL, 10);
        if (blk >= 0 && blk < 1024 && !seen[blk]) {
            seen[blk] = 1;
            n++;
        }
    }
    lvd_strv_free(items);
    return n;
}

/* The last line of out that starts with "-c ", malloc'd; NULL when none. */
static char *plan_line(const char *out)
{
    char *best = NULL;
    for (const char *s = out; s && *s;) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len > 3 && !strncmp(s, "-c ", 3)) {
            free(best);
            best = lvd_xstrndup(s, len);
        }
        s = e ? e + 1 : NULL;
    }
    return best;
}

int engine_fit_plan_parse(const char *out, engine_fit_plan *p, lvd_err *err)
{
    memset(p, 0, sizeof *p);
    char *line = plan_line(out);
    if (!line)
        return lvd_errf(err, "llama-fit-params printed no plan (no line starting with -c)");
    size_t n;
    char **w = words_of(line, &n);
    int rc = 0, have_ngl = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *v = i + 1 < n ? w[i + 1] : NULL;
        int64_t x;
        if (!strcmp(w[i], "-c") || !strcmp(w[i], "-ngl")) {
            if (!v || lvd_parse_i64(v, &x) || x < (strcmp(w[i], "-c") ? -1 : 0) || x > (1 << 30))
                rc = lvd_errf(err, "llama-fit-params: %s wants a number in '%s'", w[i], line);
            else if (!strcmp(w[i], "-c"))
                p->ctx = x;
            else {
                p->ngl = (int)x;
                have_ngl = 1;
            }
            i++;
        } else if (!strcmp(w[i], "-ts") || !strcmp(w[i], "-ot")) {
            if (!v || !*v) /* `-ts ""`: no split is a plan without -ts, not an empty one */
                rc = lvd_errf(err, "llama-fit-params: %s without its value in '%s'", w[i], line);
            else if (!strcmp(w[i], "-ts")) { /* given twice: the last one counts, as llama.cpp's */
                free(p->ts);
                p->ts = lvd_xstrdup(v);
            } else {
                free(p->overrides);
                p->overrides = lvd_xstrdup(v);
            }
            i++;
        }
    }
    if (rc == 0 && !have_ngl)
        rc = lvd_errf(err, "llama-fit-params: no -ngl in '%s'", line);
    if (rc == 0 && p->overrides)
        p->host_blocks = host_blocks(p->overrides);
    lvd_strv_free(w);
    free(line);
    if (rc)
        engine_fit_plan_free(p);
    return rc ? -1 : 0;
}

void engine_fit_caps_of(const char *dir, const engine_help *help, engine_fit_caps *out)
{
    memset(out, 0, sizeof *out);
    char *fit = lvd_xasprintf("%s/llama-fit-params", dir);
    out->fit_params = access(fit, X_OK) == 0;
    out->bench_fitt = engine_help_opt(help, ENGINE_TOOL_BENCH, "-fitt") != NULL;
    free(fit);
}

static int parse_plan(const char *text, void *arg, lvd_err *err)
{
    return engine_fit_plan_parse(text, arg, err);
}

int engine_fit_params_run(const char *dir, const engine_help *help, const char *model, const char *device,
                          uint32_t ctx, int fit_target, const char *env, engine_fit_plan *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    char *bin = lvd_xasprintf("%s/llama-fit-params", dir);
    engine_run r = {.kind = ENGINE_RUN_FIT_PARAMS, .binary = bin, .model = model, .help = help, .ctx = ctx};
    lvd_params_init(&r.params);
    snprintf(r.params.device, sizeof r.params.device, "%s", device ? device : "");
    r.params.fit_target = fit_target;
    int rc = engine_fit_params_exec(&r, env, parse_plan, out, err);
    free(bin);
    return rc;
}
