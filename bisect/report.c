/* report.c: a bisect's result as JSON (--json, and what the store keeps for
 * the evidence page) and as text. Not for the hunt (bisect/bisect.c). */
#include "bisect/bisect.h"

#include "common/json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

static cJSON *step_json(const store_bisect_step *x)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "build", lvd_json_str(x->build));
    cJSON_AddItemToObject(j, "commit", lvd_json_str(x->commit));
    cJSON_AddItemToObject(j, "verdict", lvd_json_str(x->verdict));
    cJSON_AddItemToObject(j, "reason", lvd_json_str(x->reason));
    cJSON_AddItemToObject(j, "session", lvd_json_str(x->session));
    cJSON_AddItemToObject(j, "vs_good", lvd_json_num(x->vs_good));
    cJSON_AddItemToObject(j, "vs_good_ci", cJSON_CreateDoubleArray((double[]){x->vs_good_lo, x->vs_good_hi}, 2));
    cJSON_AddItemToObject(j, "vs_bad", lvd_json_num(x->vs_bad));
    cJSON_AddItemToObject(j, "vs_bad_ci", cJSON_CreateDoubleArray((double[]){x->vs_bad_lo, x->vs_bad_hi}, 2));
    cJSON_AddBoolToObject(j, "downloaded", x->downloaded);
    return j;
}

cJSON *bisect_result_json(const bisect_result *r)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddItemToObject(j, "good", lvd_json_str(r->good));
    cJSON_AddItemToObject(j, "bad", lvd_json_str(r->bad));
    cJSON_AddItemToObject(j, "test", lvd_json_str(r->test));
    cJSON_AddItemToObject(j, "flavour", lvd_json_str(r->flavour));
    cJSON_AddItemToObject(j, "last_good", lvd_json_str(r->last_good));
    cJSON_AddItemToObject(j, "first_bad", lvd_json_str(r->first_bad));
    cJSON_AddItemToObject(j, "good_commit", lvd_json_str(r->good_commit));
    cJSON_AddItemToObject(j, "bad_commit", lvd_json_str(r->bad_commit));
    cJSON_AddItemToObject(j, "compare", lvd_json_str(r->compare_url));
    cJSON_AddItemToObject(j, "ratio", lvd_json_num(r->ratio));
    cJSON_AddItemToObject(j, "ci", isfinite(r->ci_lo) ? cJSON_CreateDoubleArray((double[]){r->ci_lo, r->ci_hi}, 2)
                                                       : cJSON_CreateNull());
    cJSON_AddNumberToObject(j, "candidates", (double)r->n_candidates);
    cJSON_AddNumberToObject(j, "downloads", (double)r->downloads);
    cJSON_AddNumberToObject(j, "resumed", (double)r->resumed);
    cJSON *steps = cJSON_AddArrayToObject(j, "steps");
    cJSON *skipped = cJSON_AddArrayToObject(j, "skipped");
    for (size_t i = 0; i < r->n_steps; i++) {
        cJSON_AddItemToArray(steps, step_json(&r->steps[i]));
        if (!strcmp(r->steps[i].verdict, "skip")) {
            cJSON *s = cJSON_CreateObject();
            cJSON_AddItemToObject(s, "build", lvd_json_str(r->steps[i].build));
            cJSON_AddItemToObject(s, "reason", lvd_json_str(r->steps[i].reason));
            cJSON_AddItemToArray(skipped, s);
        }
    }
    cJSON *between = cJSON_AddArrayToObject(j, "between");
    for (size_t i = 0; i < r->n_between; i++)
        cJSON_AddItemToArray(between, lvd_json_str(r->between[i]));
    return j;
}

static void pct(FILE *f, double r, double lo, double hi)
{
    if (isfinite(r) && isfinite(lo))
        fprintf(f, "%+.1f %% [CI %+.1f, %+.1f]", (r - 1) * 100, (lo - 1) * 100, (hi - 1) * 100);
    else
        fputs("-", f);
}

void bisect_result_print(FILE *f, const bisect_result *r)
{
    fprintf(f, "bisect %s (good) .. %s (bad), %s, %s: %zu build(s) between, %zu download(s)", r->good, r->bad,
            r->test ? r->test : "?", r->flavour ? r->flavour : "?", r->n_candidates, r->downloads);
    if (r->resumed)
        fprintf(f, ", %zu step(s) resumed from the store", r->resumed);
    fputs("\n\n  step     verdict  vs good                    vs bad                     reason\n", f);
    for (size_t i = 0; i < r->n_steps; i++) {
        const store_bisect_step *x = &r->steps[i];
        fprintf(f, "  %-8s %-8s ", x->build, x->verdict);
        pct(f, x->vs_good, x->vs_good_lo, x->vs_good_hi);
        fputs("   ", f);
        pct(f, x->vs_bad, x->vs_bad_lo, x->vs_bad_hi);
        fprintf(f, "   %s\n", x->reason ? x->reason : "");
    }
    fputc('\n', f);
    if (r->first_bad) {
        fprintf(f, "last good: %s%s%s%s\nfirst bad: %s%s%s%s, %s ", r->last_good, r->good_commit ? " (" : "",
                r->good_commit ? r->good_commit : "", r->good_commit ? ")" : "", r->first_bad,
                r->bad_commit ? " (" : "", r->bad_commit ? r->bad_commit : "", r->bad_commit ? ")" : "",
                r->test);
        pct(f, r->ratio, r->ci_lo, r->ci_hi);
        fprintf(f, " against %s\ncompare:   %s\n", r->good, r->compare_url);
    } else if (r->n_between) {
        fprintf(f, "no boundary: the first bad build is one of the skipped builds %s ... %s, or the one after\n",
                r->between[0], r->between[r->n_between - 1]);
    }
}
