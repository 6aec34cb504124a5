/* fingerprint.c: the fingerprint of the engines a verdict compared, made
 * when the verdict is computed and checked at service start (format and
 * rules in verdict.h). Lists and stats files only (engine/files.h): never
 * hashes. */
#include "select/verdict.h"

#include "common/json.h"
#include "engine/files.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- making ------------------------------------------------------------- */

static void add_i64_str(cJSON *o, const char *key, int64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)v);
    cJSON_AddStringToObject(o, key, buf);
}

/* "set": the engine's whole file set (engine/files.h) as sel_engines_load
 * listed it, null when its directory could not be read. */
static void add_file_set(cJSON *o, const sel_engine *e)
{
    if (!e->files_listed) {
        cJSON_AddNullToObject(o, "set");
        return;
    }
    char *key = engine_files_key(&e->files);
    cJSON_AddStringToObject(o, "set", key);
    free(key);
}

char *sel_fingerprint_make(const lvd_run *runs, size_t n_runs, const sel_engines *es)
{
    cJSON *arr = cJSON_CreateArray();
    for (size_t i = 0; i < es->n; i++) {
        const sel_engine *e = &es->v[i];
        cJSON *files = NULL;
        for (size_t r = 0; r < n_runs; r++) {
            if (runs[r].engine_id != e->e.id)
                continue;
            if (!files)
                files = cJSON_CreateArray();
            const char *bin = runs[r].binary ? runs[r].binary : "";
            int seen = 0;
            cJSON *f;
            cJSON_ArrayForEach(f, files)
                seen |= !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(f, "path")), bin);
            if (seen)
                continue;
            f = cJSON_CreateObject();
            cJSON_AddStringToObject(f, "path", bin);
            cJSON_AddItemToArray(files, f);
        }
        if (!files)
            continue;
        char *server = lvd_xasprintf("%s/llama-server", e->e.dir);
        cJSON *f = cJSON_CreateObject();
        cJSON_AddStringToObject(f, "path", server);
        cJSON_AddItemToArray(files, f);
        free(server);
        cJSON_ArrayForEach(f, files) {
            int64_t mtime = -1, size = -1;
            if (sel_stat_file(cJSON_GetStringValue(cJSON_GetObjectItem(f, "path")), &mtime, &size))
                mtime = size = -1;
            add_i64_str(f, "mtime_ns", mtime);
            add_i64_str(f, "size", size);
        }
        cJSON *o = cJSON_CreateObject();
        add_file_set(o, e);
        cJSON_AddNumberToObject(o, "id", (double)e->e.id);
        cJSON_AddStringToObject(o, "name", e->e.name ? e->e.name : "");
        cJSON_AddStringToObject(o, "build", e->e.build ? e->e.build : "");
        cJSON_AddStringToObject(o, "dir", e->e.dir ? e->e.dir : "");
        cJSON_AddItemToObject(o, "files", files);
        cJSON_AddItemToArray(arr, o);
    }
    return lvd_json_compact(arr);
}

/* --- fingerprint validity ----------------------------------------------- */

/* Writes why and returns 0 ("changed"). */
static int changed(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int changed(char *why, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, len, fmt, ap);
    va_end(ap);
    return 0;
}

/* The engine's file set against the one recorded ("set"; a fingerprint
 * made before file sets were recorded has none and is judged by its files
 * alone): 1 unchanged, 0 changed (why names the file), -1 malformed. */
static int set_unchanged(const cJSON *o, const char *name, const sel_engine *e, char *why, size_t len)
{
    const cJSON *set = cJSON_GetObjectItem(o, "set");
    if (!set || cJSON_IsNull(set))
        return 1;
    if (!cJSON_IsString(set))
        return -1;
    if (!e->files_listed) /* the set as sel_engines_load listed it */
        return changed(why, len, "engine %s: %s", name, e->files_err);
    engine_files_change ch;
    int same = engine_files_compare(cJSON_GetStringValue(set), &e->files, &ch);
    if (same)
        return 1;
    if (ch.kind == ENGINE_FILES_UNRECORDED)
        return -1;
    char text[512];
    engine_files_change_text(&ch, "the verdict", text, sizeof text);
    return changed(why, len, "engine %s: %s", name, text);
}

/* One engine object of a fingerprint: 1 unchanged, 0 changed (why), -1 malformed. */
static int engine_unchanged(const sel_engines *es, const cJSON *o, char *why, size_t len)
{
    const cJSON *id = cJSON_GetObjectItem(o, "id");
    const cJSON *files = cJSON_GetObjectItem(o, "files");
    if (!cJSON_IsNumber(id) || !cJSON_IsArray(files))
        return -1;
    const char *name = lvd_json_string(o, "name");
    const sel_engine *e = sel_engines_find(es, (int64_t)id->valuedouble);
    if (!e)
        return changed(why, len, "engine %s (id %lld) is no longer registered", name,
                       (long long)id->valuedouble);
    const char *build = e->e.build ? e->e.build : "", *dir = e->e.dir ? e->e.dir : "";
    if (strcmp(build, lvd_json_string(o, "build")) != 0)
        return changed(why, len, "engine %s changed build from %s to %s", name, lvd_json_string(o, "build"),
                       build);
    if (strcmp(dir, lvd_json_string(o, "dir")) != 0)
        return changed(why, len, "engine %s moved from %s to %s", name, lvd_json_string(o, "dir"), dir);
    int set = set_unchanged(o, name, e, why, len);
    if (set != 1)
        return set;
    const cJSON *f;
    cJSON_ArrayForEach(f, files) {
        int64_t want_m, want_s, mtime = -1, size = -1;
        const char *path = lvd_json_string(f, "path");
        if (lvd_parse_i64(lvd_json_string(f, "mtime_ns"), &want_m) || lvd_parse_i64(lvd_json_string(f, "size"), &want_s))
            return -1;
        if (sel_stat_file(path, &mtime, &size) != 0)
            mtime = size = -1;
        if (mtime == want_m && size == want_s)
            continue;
        if (mtime < 0)
            return changed(why, len, "engine %s: %s is gone", name, path);
        if (want_m < 0)
            return changed(why, len, "engine %s: %s appeared", name, path);
        return changed(why, len, "engine %s: %s changed since the verdict (%s)", name, path,
                       size != want_s ? "size" : "mtime");
    }
    return 1;
}

int sel_fingerprint_valid(const sel_engines *es, const char *fp, char *why, size_t len)
{
    why[0] = '\0';
    cJSON *arr = fp ? cJSON_Parse(fp) : NULL;
    int rc = cJSON_IsArray(arr) ? 1 : -1;
    const cJSON *o;
    if (rc == 1)
        cJSON_ArrayForEach(o, arr) {
            rc = engine_unchanged(es, o, why, len);
            if (rc != 1)
                break;
        }
    if (rc < 0)
        snprintf(why, len, "the verdict's engine fingerprint is unreadable");
    cJSON_Delete(arr);
    return rc;
}
