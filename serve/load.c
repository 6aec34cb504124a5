/* load.c: load shapes N:P:G (see load.h). */
#include "serve/load.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One "N:P:G" word into *l. 0, or -1 with err. */
static int parse_one(const char *w, serve_load *l, lvd_err *err)
{
    size_t n;
    char **f = lvd_split(w, ':', &n);
    int64_t v[3] = {0, 0, 0};
    int rc = 0;
    if (n != 3 || strchr(w, ' ') || w[0] == ':' || w[strlen(w) - 1] == ':' || strstr(w, "::"))
        rc = lvd_errf(err, "load '%s': want N:P:G (clients, prompt tokens, generated tokens), e.g. 4:128:32", w);
    for (size_t i = 0; rc == 0 && i < 3; i++)
        if (lvd_parse_i64(f[i], &v[i]) != 0)
            rc = lvd_errf(err, "load '%s': '%s' is not a number", w, f[i]);
    if (rc == 0 && (v[0] < 1 || v[0] > SERVE_MAX_CLIENTS))
        rc = lvd_errf(err, "load '%s': N must be 1 to %d clients", w, SERVE_MAX_CLIENTS);
    if (rc == 0 && (v[1] < 1 || v[1] > SERVE_MAX_TOKENS || v[2] < 1 || v[2] > SERVE_MAX_TOKENS))
        rc = lvd_errf(err, "load '%s': P and G must be 1 to %d tokens", w, SERVE_MAX_TOKENS);
    lvd_strv_free(f);
    if (rc == 0)
        *l = (serve_load){(int)v[0], (int)v[1], (int)v[2]};
    return rc;
}

int serve_loads_parse(const char *s, serve_load **loads, size_t *n, lvd_err *err)
{
    *loads = NULL;
    *n = 0;
    if (!s || !*s)
        return lvd_errf(err, "load: empty (want N:P:G, e.g. 4:128:32)");
    if (s[0] == ',' || s[strlen(s) - 1] == ',' || strstr(s, ",,"))
        return lvd_errf(err, "load '%s': an empty shape between commas", s);
    size_t k;
    char **w = lvd_split(s, ',', &k);
    int rc = k > SERVE_MAX_LOADS ? lvd_errf(err, "load '%s': at most %d shapes", s, SERVE_MAX_LOADS) : 0;
    serve_load *v = lvd_xcalloc(k ? k : 1, sizeof *v);
    for (size_t i = 0; rc == 0 && i < k; i++) {
        rc = parse_one(w[i], &v[i], err);
        for (size_t j = 0; rc == 0 && j < i; j++)
            if (!memcmp(&v[j], &v[i], sizeof v[i]))
                rc = lvd_errf(err, "load '%s' is given twice", w[i]);
    }
    lvd_strv_free(w);
    if (rc) {
        free(v);
        return -1;
    }
    *loads = v;
    *n = k;
    return 0;
}

void serve_load_name(const serve_load *l, char *buf, size_t len)
{
    snprintf(buf, len, "%d:%d:%d", l->clients, l->n_prompt, l->n_gen);
}
