/* store_merge_tool.c: `lvd store merge OTHER` as the tool runs it: the
 * merge and its report, rows added per table as text or JSON
 * (store_tool.h). The merge itself is store_merge.c. */
#include "store/mergedb.h"
#include "store/store_tool.h"

#include "common/cli.h"

#include <cjson/cJSON.h>
#include <stdio.h>

int store_tool_merge(const char *tool, store *s, const char *other, int json)
{
    store_merge_counts c;
    lvd_err err = {{0}};
    int rc = store_merge(s, other, &c, &err);
    if (rc != STORE_MERGE_OK)
        return lvd_tool_fail(tool, &err, rc == STORE_MERGE_BAD_OTHER ? LVD_EXIT_INPUT : LVD_EXIT_STORE);
    store_merge_field f[STORE_MERGE_FIELDS];
    store_merge_fields(&c, f);
    if (json) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "store", store_path(s));
        cJSON_AddStringToObject(root, "merged", other);
        cJSON *added = cJSON_AddObjectToObject(root, "added");
        for (size_t i = 0; i < STORE_MERGE_FIELDS; i++)
            cJSON_AddNumberToObject(added, f[i].name, (double)f[i].value);
        lvd_json_emit(stdout, root);
        return LVD_EXIT_OK;
    }
    printf("merged %s into %s; rows added:\n", other, store_path(s));
    for (size_t i = 0; i < STORE_MERGE_FIELDS; i++)
        printf("  %-14s %lld\n", f[i].name, (long long)f[i].value);
    return LVD_EXIT_OK;
}
