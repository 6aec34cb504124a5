/* engines.c: choosing and probing the engines of a session (see engines.h). */
#include "engine/engines.h"

#include "engine/probe.h"
#include "common/cli.h"
#include "common/gguf_split.h"
#include "store/identify.h"
#include "store/store_tool.h"

#include <stdlib.h>
#include <string.h>

int engine_find(store *s, const char *name, lvd_engine *out, lvd_err *err)
{
    int rc = store_engine_by_name(s, name, out, err);
    int64_t id;
    if (rc == 1 && lvd_parse_i64(name, &id) == 0)
        rc = store_engine_get(s, id, out, err);
    return rc;
}

int engine_list_select(store *s, const char *spec, lvd_engine **v, size_t *n, lvd_err *err)
{
    *v = NULL;
    *n = 0;
    if (!spec || !*spec || !strcmp(spec, "all")) {
        if (store_engine_list(s, v, n, err))
            return -1;
        if (*n == 0) {
            lvd_errf(err, "%s: no engines registered (" LVD_REGISTER_HINT ")", store_path(s));
            return 1;
        }
        return 0;
    }
    size_t count;
    char **names = lvd_split(spec, ',', &count);
    *v = lvd_xcalloc(count ? count : 1, sizeof **v);
    int rc = 0;
    for (size_t i = 0; i < count && rc == 0; i++) {
        rc = engine_find(s, names[i], &(*v)[*n], err);
        if (rc == 0)
            (*n)++;
        else if (rc == 1)
            lvd_errf(err, "%s: no engine named '%s' (see lvd probe)", store_path(s), names[i]);
    }
    lvd_strv_free(names);
    if (rc) {
        store_engine_list_free(*v, *n);
        *v = NULL;
        *n = 0;
    }
    return rc;
}

int engine_list_probe(store *s, const lvd_engine *engines, size_t n, lvd_probe **probes,
                        lvd_err *err)
{
    *probes = lvd_xcalloc(n ? n : 1, sizeof **probes);
    for (size_t i = 0; i < n; i++) {
        lvd_progress("probing %s (%zu/%zu)", engines[i].name, i + 1, n);
        if (engine_probe_engine(s, &engines[i], 0, 0, &(*probes)[i], err)) {
            lvd_progress_done();
            engine_probes_free(*probes, i);
            *probes = NULL;
            return -1;
        }
    }
    lvd_progress_done();
    return 0;
}

void engine_probes_free(lvd_probe *probes, size_t n)
{
    for (size_t i = 0; probes && i < n; i++)
        lvd_probe_free(&probes[i]);
    free(probes);
}

int engine_setup_open(const char *tool, const char *store_opt, const char *model, const char *spec,
                     engine_setup *out)
{
    memset(out, 0, sizeof *out);
    int code = store_tool_open(tool, store_opt, STORE_OPEN_CREATE, &out->s);
    if (code != LVD_EXIT_OK)
        return code;
    lvd_err err = {{0}};
    if (store_identify(out->s, model, 0, &out->art, NULL, &err) != 0)
        return lvd_tool_fail(tool, &err, LVD_EXIT_INPUT);
    /* llama.cpp loads a split model from its first shard only */
    out->model = gguf_split_first(model);
    int rc = engine_list_select(out->s, spec, &out->engines, &out->n, &err);
    if (rc == 0)
        rc = engine_list_probe(out->s, out->engines, out->n, &out->probes, &err);
    if (rc != 0)
        return lvd_tool_fail(tool, &err, rc == 1 ? LVD_EXIT_FAIL : LVD_EXIT_STORE);
    return LVD_EXIT_OK;
}

void engine_setup_free(engine_setup *b)
{
    engine_probes_free(b->probes, b->n);
    store_engine_list_free(b->engines, b->n);
    store_artifact_free(&b->art);
    free(b->model);
    store_close(b->s);
    memset(b, 0, sizeof *b);
}
