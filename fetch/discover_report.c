/* discover_report.c: what `lvd probe --discover` prints (see discover.h): the
 * --json document, the one-line summary and the table of what was found. Not
 * for searching or registering (discover.c). */
#include "fetch/discover.h"

#include "common/json.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *backend_of(const fetch_discover_found *f)
{
    return f->probed && f->probe.backend[0] ? f->probe.backend : LVD_BACKEND_UNKNOWN;
}

cJSON *fetch_discover_json(const fetch_discover_result *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddBoolToObject(root, "dry_run", r->dry_run);
    cJSON_AddNumberToObject(root, "new", (double)r->n_new);
    cJSON_AddNumberToObject(root, "known", (double)r->n_known);
    cJSON *arr = cJSON_AddArrayToObject(root, "found");
    for (size_t i = 0; i < r->n; i++) {
        const fetch_discover_found *f = &r->v[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToObject(o, "path", lvd_json_str(f->dir));
        cJSON_AddItemToObject(o, "source", lvd_json_str(f->source));
        cJSON_AddItemToObject(o, "build", lvd_json_str(f->build));
        cJSON_AddItemToObject(o, "commit", lvd_json_str(f->commit));
        cJSON_AddItemToObject(o, "backend", lvd_json_str(f->dir ? backend_of(f) : NULL));
        cJSON_AddItemToObject(o, "name", lvd_json_str(f->name));
        cJSON_AddStringToObject(o, "status", f->status);
        const char *reason = f->reason                                          ? f->reason
                             : f->probed && f->probe.reason && *f->probe.reason ? f->probe.reason
                                                                                : NULL;
        cJSON_AddItemToObject(o, "reason", lvd_json_str(reason));
        cJSON_AddItemToObject(o, "engine_id", lvd_json_num_if(f->engine_id > 0, (double)f->engine_id));
        cJSON *devs = cJSON_AddArrayToObject(o, "devices");
        for (size_t k = 0; f->probed && k < f->probe.n_devices; k++)
            cJSON_AddItemToArray(devs, cJSON_CreateString(f->probe.devices[k].selector));
        cJSON *backends = cJSON_AddArrayToObject(o, "backends");
        size_t nb;
        char **bv = lvd_split(f->probed ? f->probe.backends : "", ',', &nb);
        for (size_t k = 0; k < nb; k++)
            cJSON_AddItemToArray(backends, cJSON_CreateString(bv[k]));
        lvd_strv_free(bv);
        cJSON_AddItemToObject(o, "no_device", lvd_json_str(f->probed ? f->probe.no_device : NULL));
        cJSON_AddItemToArray(arr, o);
    }
    return root;
}

char *fetch_discover_summary(const fetch_discover_result *r)
{
    size_t found = r->n_new + r->n_known + r->n_unidentified;
    lvd_sb sb = {0};
    if (!found) {
        lvd_sb_adds(&sb, "no llama.cpp engine found (on PATH, in LVD_ENGINE_* / AIDE_LLAMA_SERVER*, "
                         "in the usual places or the bench dirs)");
    } else if (r->n_new == 0) {
        lvd_sb_addf(&sb, "nothing new: %zu engine%s found, %zu already registered", found,
                    found == 1 ? "" : "s", r->n_known);
    } else {
        lvd_sb_addf(&sb, "%s %zu new engine%s (%zu found, %zu already registered)",
                    r->dry_run ? "dry run: would register" : "registered", r->n_new,
                    r->n_new == 1 ? "" : "s", found, r->n_known);
    }
    if (r->n_unidentified)
        lvd_sb_addf(&sb, "; %zu could not be identified", r->n_unidentified);
    if (r->n_missing)
        lvd_sb_addf(&sb, "; %zu named by the environment missing", r->n_missing);
    if (r->dry_run)
        lvd_sb_adds(&sb, "; nothing written");
    return lvd_sb_detach(&sb);
}

void fetch_discover_table(FILE *f, const fetch_discover_result *r)
{
    if (r->n) {
        fprintf(f, "%-12s %-20s %-8s %-10s %-12s %-26s %s\n", "STATUS", "NAME", "BUILD", "COMMIT",
                "BACKEND", "SOURCE", "DIR");
        for (size_t i = 0; i < r->n; i++) {
            const fetch_discover_found *e = &r->v[i];
            fprintf(f, "%-12s %-20s %-8s %-10s %-12s %-26s %s\n", e->status, e->name ? e->name : "-",
                    e->build ? e->build : "-", e->commit ? e->commit : "-",
                    e->dir ? backend_of(e) : "-", e->source, e->dir ? e->dir : "-");
            if (e->reason)
                fprintf(f, "  %s\n", e->reason);
            else if (e->probed && e->probe.reason && *e->probe.reason)
                fprintf(f, "  probe: %s\n", e->probe.reason);
            if (e->probed && e->probe.no_device)
                fprintf(f, "  note: %s\n", e->probe.no_device);
        }
    }
    char *s = fetch_discover_summary(r);
    fprintf(f, "%s\n", s);
    free(s);
}
