/* lvd-probe.c: the `lvd probe` tool. Asks each registered engine which
 * devices it sees (`--list-devices`), caches the answer in the store and
 * prints it. Option parsing only; the work is engine/probe.c. */
#include "builds/older.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "engine/probe.h"
#include "fetch/discover.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-probe"

typedef struct options {
    lvd_tool_opts t;    /* --store, --json */
    lvd_opt_strs engines; /* --engine NAME|ID, repeatable; none = all */
    int all;
    int refresh;
    int64_t timeout_s;
    int64_t wait_s;     /* --wait: how long to wait for the device lock */
    int discover;       /* --discover [DIR...] */
    int dry_run;
    char **dirs;        /* the operands */
    size_t n_dirs;
} options;

#define PROBE .form = LVD_FORM(0)
static const lvd_opt table[] = {
    {.spell = "--all", .kind = LVD_OPT_FLAG, LVD_AT(all), PROBE, .help = "probe every registered engine (the default)"},
    {.spell = "--engine", .arg = "NAME", .kind = LVD_OPT_STRS, LVD_AT(engines), PROBE,
     .help = "probe this engine (name or id); may be repeated"},
    {.spell = "--refresh", .kind = LVD_OPT_FLAG, LVD_AT(refresh), PROBE,
     .help = "ignore the cache and ask every engine again"},
    {LVD_OPT_TIMEOUT, LVD_AT(timeout_s), .def = LVD_STRINGIFY(ENGINE_PROBE_TIMEOUT_S) "s",
     .help = "kill a probe that has not answered after DUR"},
    {LVD_OPT_WAIT, LVD_AT(wait_s)},
    {.spell = "--discover", .kind = LVD_OPT_FLAG, LVD_AT(discover), .form = LVD_FORM(1),
     .help = "find engines and register the new ones (see above)"},
    {.spell = "--dry-run", .kind = LVD_OPT_FLAG, LVD_AT(dry_run), .form = LVD_FORM(1),
     .help = "list what would be registered, write nothing"},
    {LVD_OPT_JSON, .help = "print JSON: {\"probes\": [...]} ({\"found\": [...]} with --discover)"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Runs `llama-bench --list-devices` (else llama-server's) of each registered engine and records the "
             "devices it sees. Answers are cached for 24 h per binary; an engine any of whose files changed "
             "(launchers, shared libraries, backend modules: size, mtime or inode; one added or gone) is asked "
             "again at once, and says why, and so is one under other device-visibility variables "
             "(GGML_VK_VISIBLE_DEVICES, CUDA_VISIBLE_DEVICES, ...: the environment is shown and recorded with each "
             "probe). The backends its files carry are shown, with a note for one that lists no device. An engine "
             "that cannot be asked (missing, hung, crashing, failing) is shown as backend 'unknown' with the "
             "reason; the others are probed regardless. A registered (locally built) engine older than the pinned "
             "build ($LVD_PIN_FILE, else the shipped pin file) gets a warning line with the tag to rebuild at "
             "(JSON: older_than_pin); nothing is rebuilt.\n\n"
             "--discover finds llama.cpp engines and registers each new one once, named BUILD-BACKEND from its own "
             "--version and probe (b9749-vulkan): the DIRs, then LVD_ENGINE_<NAME>=DIR and AIDE_LLAMA_SERVER*=BINARY, "
             "llama-server/llama-bench on PATH, the usual places ($LVD_DISCOVER_PLACES, default "
             FETCH_DISCOVER_DEFAULT_PLACES ") and lvd fetch's bench dirs. A directory already registered is "
             "'known'.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, NULL}, {"--discover", "[DIR...]"}, {NULL, NULL}},
    .exits = "0 every engine answered, 5 some engine is unknown (or, discovering, could not be identified), 1 no "
             "engines or no such engine (none found), 2 usage, 3 a DIR holds no engine, 4 store error, 8 the "
             "devices are in use.",
    .examples = "lvd probe --engine b9749-cuda --refresh\nlvd probe --discover --dry-run",
};

/* Loads the engines to probe into *v. Returns an exit code. */
static int select_engines(store *s, const options *o, lvd_engine **v, size_t *n)
{
    lvd_err err = {{0}};
    if (!o->engines.n) {
        if (store_engine_list(s, v, n, &err) != 0)
            return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        if (*n == 0) {
            lvd_error(TOOL, "%s: no engines registered (" LVD_REGISTER_HINT ")", store_path(s));
            return LVD_EXIT_FAIL;
        }
        return LVD_EXIT_OK;
    }
    *v = lvd_xcalloc(o->engines.n, sizeof **v);
    *n = 0;
    for (size_t i = 0; i < o->engines.n; i++) {
        int rc = engine_find(s, o->engines.v[i], &(*v)[*n], &err);
        if (rc != 0) {
            if (rc == 1)
                lvd_error(TOOL, "%s: no engine named '%s' (see lvd store engines)", store_path(s), o->engines.v[i]);
            else
                lvd_error(TOOL, "%s", err.msg);
            return rc == 1 ? LVD_EXIT_FAIL : LVD_EXIT_STORE;
        }
        (*n)++;
    }
    return LVD_EXIT_OK;
}

/* --discover: the work is fetch/discover.c. A dry run never creates the store. */
static int discover(const options *o)
{
    for (size_t i = 0; i < o->n_dirs; i++) { /* refused before the store is created */
        char *why = NULL, *dir = fetch_discover_engine_dir(o->dirs[i], &why);
        free(dir);
        if (why) {
            lvd_error(TOOL, "%s", why);
            free(why);
            return LVD_EXIT_INPUT;
        }
    }
    store *s = NULL;
    char *path = store_default_path(o->t.store);
    int code = LVD_EXIT_OK;
    if (!o->dry_run)
        code = store_tool_open(TOOL, o->t.store, STORE_OPEN_CREATE, &s);
    else if (access(path, F_OK) == 0)
        code = store_tool_open(TOOL, o->t.store, STORE_OPEN_READONLY, &s);
    free(path);
    if (code != LVD_EXIT_OK)
        return code;
    fetch_discover_opts d = {.dirs = (const char *const *)o->dirs, .n_dirs = o->n_dirs, .dry_run = o->dry_run,
                             .timeout_ms = (int)(o->timeout_s * 1000)};
    fetch_discover_result r;
    lvd_err err = {{0}};
    if (fetch_discover_run(s, &d, &r, &code, &err) != 0) {
        store_close(s);
        return lvd_tool_fail(TOOL, &err, code);
    }
    if (o->t.json)
        lvd_json_emit(stdout, fetch_discover_json(&r));
    else
        fetch_discover_table(stdout, &r);
    code = fetch_discover_exit_code(&r);
    if (code == LVD_EXIT_FAIL)
        lvd_error(TOOL, "no llama.cpp engine found (" LVD_REGISTER_HINT " registers one by hand)");
    fetch_discover_result_free(&r);
    store_close(s);
    return code;
}

/* Probes the engines o names (every registered one by default), prints
 * their devices; the exit status. */
static int probe(const options *o)
{
    int code;
    store *s;
    if ((code = store_tool_open(TOOL, o->t.store, 0, &s)) != 0)
        return code;
    lvd_err err = {{0}};
    lvd_engine *engines = NULL;
    size_t n = 0;
    code = select_engines(s, o, &engines, &n);
    lvd_probe *probes = lvd_xcalloc(n ? n : 1, sizeof *probes);
    int *cached = lvd_xcalloc(n ? n : 1, sizeof *cached);
    size_t done = 0;
    int unknown = 0, store_failed = 0;
    for (size_t i = 0; code == LVD_EXIT_OK && i < n; i++) {
        lvd_progress("probing %s (%zu/%zu)", engines[i].name, i + 1, n);
        if (engine_probe_engine_ex(s, &engines[i], o->refresh, (int)(o->timeout_s * 1000), &probes[done],
                                   &cached[done], &err) != 0) {
            lvd_error(TOOL, "%s: %s", engines[i].name, err.msg);
            store_failed = 1;
            continue;
        }
        if (done != i) { /* keep engines[k] and probes[k] together */
            lvd_engine t = engines[done];
            engines[done] = engines[i];
            engines[i] = t;
        }
        unknown += !strcmp(probes[done].backend, LVD_BACKEND_UNKNOWN);
        done++;
    }
    lvd_progress_done();
    char pin[64];
    builds_pin_default_resolved(engines, n, pin, sizeof pin); /* a SemVer pin: the build it stands for */
    if (code == LVD_EXIT_OK) {
        if (o->t.json) {
            cJSON *root = cJSON_CreateObject();
            cJSON *arr = cJSON_AddArrayToObject(root, "probes");
            for (size_t i = 0; i < done; i++) {
                cJSON *one = engine_probe_json(&engines[i], &probes[i], cached[i]);
                char msg[512];
                if (*pin && builds_local_older(&engines[i], pin, msg, sizeof msg))
                    cJSON_AddStringToObject(one, "older_than_pin", msg);
                else
                    cJSON_AddNullToObject(one, "older_than_pin");
                cJSON_AddItemToArray(arr, one);
            }
            lvd_json_emit(stdout, root);
        } else {
            engine_probe_table(stdout, engines, probes, cached, done);
            for (size_t i = 0; i < done; i++) {
                char msg[512];
                if (*pin && builds_local_older(&engines[i], pin, msg, sizeof msg))
                    printf("warning: %s\n", msg);
            }
        }
        code = store_failed ? LVD_EXIT_STORE : unknown ? LVD_EXIT_PARTIAL : LVD_EXIT_OK;
    }
    for (size_t i = 0; i < done; i++)
        lvd_probe_free(&probes[i]);
    free(probes);
    free(cached);
    store_engine_list_free(engines, n);
    store_close(s);
    return code;
}
/* Parses, takes the device lock (a probe runs the engines), probes. */
int main(int argc, char **argv)
{
    options o = {0};
    lvd_opt_result r;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    if (code == 0 && o.all && o.engines.n)
        code = lvd_usage_error(TOOL, "--all and --engine exclude each other");
    for (int i = 1; code == 0 && i <= r.n_operands; i++)
        lvd_strv_push(&o.dirs, &o.n_dirs, lvd_xstrdup(argv[i]));
    engine_devlock lock;
    if (code == 0 && (code = engine_devlock_tool(TOOL, o.t.store, o.wait_s * 1000, &lock)) == 0) {
        code = o.discover ? discover(&o) : probe(&o);
        engine_devlock_release(&lock);
    }
    lvd_strv_free(o.dirs);
    lvd_opt_free(&tool, &o);
    return code < 0 ? LVD_EXIT_OK : code;
}
