/* report.c: what lvd fit prints of its items: the table and the exit
 * status (fit.h). Not for the search (search.c) or the JSON (fit.c). */
#include "fit/fit.h"

#include "common/cli.h"

void fit_items_print(FILE *f, const fit_item *v, size_t n)
{
    fprintf(f, "%-16s %-8s %-11s %9s %9s %8s %-22s %6s\n", "ENGINE", "DEVICE", "KV", "CEILING", "PREDICTED", "FREE MiB",
            "PLACEMENT", "LOADS");
    for (size_t i = 0; i < n; i++) {
        char kv[40], ceil[24], pred[24], free_mib[24];
        snprintf(kv, sizeof kv, "%s/%s", v[i].pair.type_k, v[i].pair.type_v);
        if (v[i].error) {
            fprintf(f, "%-16s %-8s %-11s %9s  %s\n", v[i].engine, v[i].device, kv, "-", v[i].error);
            continue;
        }
        snprintf(ceil, sizeof ceil, "%s%lld", v[i].capped ? ">=" : "", (long long)v[i].ceiling);
        snprintf(pred, sizeof pred, v[i].predicted < 0 ? "-" : "%lld", (long long)v[i].predicted);
        snprintf(free_mib, sizeof free_mib, v[i].free_mib < 0 ? "-" : "%lld", (long long)v[i].free_mib);
        fprintf(f, "%-16s %-8s %-11s %9s %9s %8s %-22s %6d\n", v[i].engine, v[i].device, kv, ceil, pred, free_mib,
                v[i].placement, v[i].probes);
        if (v[i].last_fail)
            fprintf(f, "  above it: %s\n", v[i].last_fail);
        if (v[i].left_out)
            fprintf(f, "  %s\n", v[i].left_out);
    }
}

int fit_items_exit(const fit_item *v, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += v[i].error != NULL;
    return bad == 0 ? LVD_EXIT_OK : bad < n ? LVD_EXIT_PARTIAL : LVD_EXIT_FAIL;
}

