/* import_report.c: what `lvd store import` prints of one file's import (its
 * report as a line or as a JSON object). Not for importing (bench/import.c). */
#include "bench/import_report.h"

#include <cjson/cJSON.h>

cJSON *bench_import_report_json(const char *file, const bench_import_report *rep)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "format", bench_format_name(rep->format));
    cJSON_AddBoolToObject(j, "sqlite_db", rep->sqlite_db);
    cJSON_AddNumberToObject(j, "rows", (double)rep->rows);
    cJSON_AddNumberToObject(j, "rows_selected", (double)rep->rows_selected);
    cJSON_AddNumberToObject(j, "runs_added", (double)rep->runs_added);
    cJSON_AddNumberToObject(j, "runs_skipped", (double)rep->runs_skipped);
    cJSON_AddNumberToObject(j, "results_added", (double)rep->results_added);
    cJSON_AddNumberToObject(j, "samples_added", (double)rep->samples_added);
    cJSON_AddNumberToObject(j, "warmup_flagged", (double)rep->warmup_flagged);
    cJSON_AddItemToObject(j, "skipped_session", rep->skipped_session[0] ? cJSON_CreateString(rep->skipped_session)
                                                                     : cJSON_CreateNull());
    cJSON_AddNumberToObject(j, "gpu_ignored", (double)rep->gpu_ignored);
    cJSON_AddNumberToObject(j, "engine_id", (double)rep->engine_id);
    cJSON_AddBoolToObject(j, "engine_registered", rep->engine_registered);
    cJSON_AddStringToObject(j, "artifact", rep->artifact);
    return j;
}

void bench_import_report_print(FILE *f, const char *file, const bench_import_report *rep)
{
    fprintf(f, "%s: %zu results (%s%s)", file, rep->rows, bench_format_name(rep->format),
           rep->sqlite_db ? " in an SQLite database" : "");
    if (rep->rows_selected != rep->rows)
        fprintf(f, ", %zu selected", rep->rows_selected);
    fprintf(f, ": %zu runs added (%zu results, %zu samples, %zu flagged as warm-up), %zu already in the store\n",
           rep->runs_added, rep->results_added, rep->samples_added, rep->warmup_flagged, rep->runs_skipped);
    if (rep->skipped_session[0])
        fprintf(f, "note: runs already in the store stay in their session '%s'\n", rep->skipped_session);
    if (rep->engine_registered)
        fprintf(f, "registered engine %lld (origin imported)\n", (long long)rep->engine_id);
    if (rep->gpu_ignored)
        fprintf(f, "warning: %zu runs asked for GPU layers but ran on the CPU (recorded as gpu_ignored)\n",
               rep->gpu_ignored);
}

