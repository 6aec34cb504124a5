/* hunt.c: the nightly's lvd bisect command line (nightly/hunt.h). Not for
 * running steps (nightly.c) or bisecting (bisect/). */
#include "nightly/hunt.h"

#include "store/store.h"

#include <stdio.h>
#include <string.h>

int night_regression_of(const char *rule, char *test, size_t tn, char *backend, size_t bn)
{
    const char *p = rule && !strncmp(rule, "regression: ", 12) ? rule + 12 : NULL;
    const char *on = p ? strstr(p, " on ") : NULL;
    if (!on || on == p)
        return -1;
    snprintf(test, tn, "%.*s", (int)(on - p), p);
    snprintf(backend, bn, "%.*s", (int)strcspn(on + 4, " "), on + 4);
    return 0;
}

char **night_bisect_argv(const night_config *c, const char *tools_dir, const char *store_path, size_t *n,
                         int *timeout_s)
{
    *n = 0;
    store *s = NULL;
    lvd_err err = {{0}};
    lvd_pin_decision *d = NULL;
    size_t nd = 0;
    if (!c->bisect || !c->n_models || store_open(store_path, STORE_OPEN_READONLY, &s, &err) ||
        store_pin_decision_list(s, 1, &d, &nd, &err)) {
        store_close(s);
        return NULL;
    }
    char test[48], backend[32];
    char **v = NULL;
    if (nd && d[0].candidate_build && night_regression_of(d[0].rule, test, sizeof test, backend, sizeof backend) == 0) {
        lvd_strv_pushf(&v, n, "%s/lvd-bisect", tools_dir);
        const char *words[] = {"--store", store_path, "--good", d[0].pinned_build, "--bad", d[0].candidate_build,
                               "--model", c->models[0], "--test", test, "--arm", backend, "--budget",
                               c->bisect_budget};
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            lvd_strv_pushf(&v, n, "%s", words[i]);
        if (c->n_flavours) {
            lvd_strv_pushf(&v, n, "--flavour");
            lvd_strv_pushf(&v, n, "%s", c->flavours[0]);
        }
        int64_t budget = 3600;
        lvd_parse_duration(c->bisect_budget, &budget);
        *timeout_s = (int)budget + 600; /* the hunt stops itself at its budget */
    }
    store_pin_decision_list_free(d, nd);
    store_close(s);
    return v;
}
