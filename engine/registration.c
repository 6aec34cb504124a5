/* registration.c: register a directory, then record its probe (see
 * registration.h). Prints nothing: the tools print the result. */
#include "engine/registration.h"

#include "common/cli.h"
#include "engine/identity.h"
#include "engine/probe.h"

#include <cjson/cJSON.h>
#include <string.h>

/* Records the probe the caller ran (now in r->probe) against r->engine. */
static int record_ran(store *s, engine_registration *r)
{
    r->probe.engine_id = r->engine.id;
    r->probe.probed_at = lvd_now();
    if (engine_identity_complete(s, &r->engine, &r->probe, &r->err) != 0) /* its file set, as probes record it */
        return -1;
    return store_probe_put(s, &r->probe, &r->err);
}

int engine_register_probe(store *s, const engine_register_opts *o, int no_probe, lvd_probe *ran,
                          engine_registration *r)
{
    memset(r, 0, sizeof *r);
    if (ran) {
        r->probe = *ran;
        memset(ran, 0, sizeof *ran);
    }
    if (engine_register(s, o, &r->engine, &r->exit_code, &r->err) != 0)
        return r->exit_code;
    r->registered = 1;
    r->exit_code = LVD_EXIT_OK;
    if (no_probe)
        return r->exit_code;
    int rc = ran ? record_ran(s, r)
                 : engine_probe_engine_ex(s, &r->engine, 0, o->timeout_ms, &r->probe, &r->cached,
                                          &r->err);
    if (rc != 0)
        return r->exit_code = LVD_EXIT_STORE;
    r->probed = 1;
    if (!strcmp(r->probe.backend, LVD_BACKEND_UNKNOWN))
        r->exit_code = LVD_EXIT_PARTIAL;
    return r->exit_code;
}

void engine_registration_free(engine_registration *r)
{
    if (!r)
        return;
    if (r->registered)
        lvd_engine_free(&r->engine);
    lvd_probe_free(&r->probe);
    memset(r, 0, sizeof *r);
}

cJSON *engine_registration_json(const engine_registration *r)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddItemToObject(root, "engine", engine_json(&r->engine));
    cJSON *probe = r->probed ? engine_probe_json(&r->engine, &r->probe, r->cached) : cJSON_CreateNull();
    cJSON_AddItemToObject(root, "probe", probe);
    return root;
}
