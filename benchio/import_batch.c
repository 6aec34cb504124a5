/* import_batch.c: `lvd store import F1 F2 ...`: several files imported in turn
 * with one store open (one transaction each), the options given once for
 * every file or once per file, and each file's report printed as a line or
 * a JSON object. Not for importing one file (benchio/import.c). */
#include "benchio/import_batch.h"

#include "common/cli.h"

#include <cjson/cJSON.h>

static cJSON *report_json(const char *file, const benchio_import_report *rep)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "file", file);
    cJSON_AddStringToObject(j, "format", benchio_format_name(rep->format));
    cJSON_AddBoolToObject(j, "sqlite_db", rep->sqlite_db);
    cJSON_AddNumberToObject(j, "rows", (double)rep->rows);
    cJSON_AddNumberToObject(j, "lines_skipped", (double)rep->lines_skipped);
    cJSON_AddNumberToObject(j, "rows_selected", (double)rep->rows_selected);
    cJSON_AddNumberToObject(j, "rows_other_backend", (double)rep->rows_other_backend);
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

static void report_print(FILE *f, const char *file, const benchio_import_report *rep)
{
    fprintf(f, "%s: %zu results (%s%s)", file, rep->rows, benchio_format_name(rep->format),
           rep->sqlite_db ? " in an SQLite database" : "");
    if (rep->rows_selected != rep->rows)
        fprintf(f, ", %zu selected", rep->rows_selected);
    if (rep->rows_other_backend)
        fprintf(f, " (%zu of another backend skipped)", rep->rows_other_backend);
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


/* Imports each file in turn (one store open, one transaction per file); the
 * first that fails stops the rest, the files before it stay imported. With
 * --json: one file's object, or an array of them for several files. */
int benchio_import_batch_run(store *s, const benchio_import_batch *b, const char *tool)
{
    static const char *const names[] = {"--engine", "--model", "--artifact"};
    const int counts[] = {b->n_engines, b->n_models, b->n_artifacts};
    for (int k = 0; k < 3; k++)
        if (counts[k] > 1 && counts[k] != b->n_files)
            return lvd_usage_error(tool, "import: %s given %d times for %d files: give it once, or once per file",
                                   names[k], counts[k], b->n_files);
    cJSON *all = b->json && b->n_files > 1 ? cJSON_CreateArray() : NULL;
    int rc = LVD_EXIT_OK;
    for (int i = 0; i < b->n_files && rc == LVD_EXIT_OK; i++) {
        benchio_import_opts io = *b->base;
        io.file = b->files[i];
        if (b->n_engines > 1)
            io.engine = b->engines[i];
        if (b->n_models > 1)
            io.model = b->models[i];
        if (b->n_artifacts > 1)
            io.artifact = b->artifacts[i];
        benchio_import_report rep;
        lvd_err err = {0};
        if (benchio_import_file(s, &io, &rep, &err)) {
            if (i)
                lvd_error(tool, "%d of %d files imported before this one", i, b->n_files);
            if (rep.fail == BENCHIO_IMPORT_USAGE)
                rc = lvd_usage_error(tool, "%s", err.msg);
            else {
                lvd_error(tool, "%s", err.msg);
                rc = rep.fail == BENCHIO_IMPORT_INPUT ? LVD_EXIT_INPUT : LVD_EXIT_STORE;
            }
            continue;
        }
        if (rep.lines_skipped)
            lvd_warn(tool, "%s: skipped %zu %s not llama-bench output (the first: '%s')", b->files[i],
                     rep.lines_skipped, rep.lines_skipped == 1 ? "line that is" : "lines that are", rep.first_skipped);
        if (all) {
            cJSON_AddItemToArray(all, report_json(b->files[i], &rep));
        } else if (b->json) {
            lvd_json_emit(stdout, report_json(b->files[i], &rep));
        } else {
            report_print(stdout, b->files[i], &rep);
        }
    }
    if (all && rc == LVD_EXIT_OK)
        lvd_json_emit(stdout, all);
    else
        cJSON_Delete(all);
    return rc;
}
