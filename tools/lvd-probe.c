/* lvd-probe.c: the `lvd probe` tool. Asks each registered engine which
 * devices it sees (`--list-devices`), caches the answer in the store and
 * prints it. Option parsing only; the work is engine/probe.c. */
#include "builds/names.h"
#include "builds/older.h"
#include "fetch/discover.h"
#include "engine/devlock.h"
#include "engine/engines.h"
#include "engine/probe.h"
#include "common/cli.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-probe"

typedef struct options {
    lvd_tool_opts t;    /* --store, --json */
    const char **engines; /* --engine NAME|ID, repeatable; NULL = all */
    size_t n_engines;
    int all;
    int refresh;
    int timeout_ms;
    int64_t wait_s;     /* --wait: how long to wait for the device lock */
    int discover;       /* --discover [DIR...] */
    int dry_run;
    char **dirs;        /* the operands */
    size_t n_dirs;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd probe [--all | --engine NAME...] [--refresh] [--timeout SECS] [--wait DUR]\n"
            "                 [--json] [--store PATH]\n"
            "       lvd probe --discover [DIR...] [--dry-run] [--timeout SECS] [--json]\n\n"
            "Runs `llama-bench --list-devices` (else llama-server's) of each registered engine\n"
            "and records the devices it sees. Answers are cached for 24 h per binary; an engine\n"
            "any of whose files changed (launchers, shared libraries, backend modules: size,\n"
            "mtime or inode; one added or gone) is asked again at once, and says why, and so is\n"
            "one under other device-visibility variables (GGML_VK_VISIBLE_DEVICES,\n"
            "CUDA_VISIBLE_DEVICES, ...: the environment is shown and recorded with each probe).\n"
            "The backends its files carry are shown, with a note for one that lists no device.\n"
            "An engine that cannot be asked\n"
            "(missing, hung, crashing, failing) is shown as backend 'unknown' with the reason;\n"
            "the others are probed regardless. A registered (locally built) engine older than the\n"
            "pinned build ($LVD_PIN_FILE, else the shipped pin file) gets a warning line with the\n"
            "tag to rebuild at (JSON: older_than_pin); nothing is rebuilt.\n\n"
            "--discover finds llama.cpp engines and registers each new one once, named\n"
            "BUILD-BACKEND from its own --version and probe (b9749-vulkan): the DIRs, then\n"
            "LVD_ENGINE_<NAME>=DIR and AIDE_LLAMA_SERVER*=BINARY, llama-server/llama-bench\n"
            "on PATH, the usual places ($LVD_DISCOVER_PLACES, default\n"
            "~/llama.cpp/build*/bin:/opt/llama.cpp/*:/opt/llama.cpp/*/bin:/usr/local/bin:/usr/bin)\n"
            "and lvd fetch's bench dirs. A directory already registered is 'known'.\n\n"
            "options:\n"
            "  --all            probe every registered engine (the default)\n"
            "  --engine NAME    probe this engine (name or id); may be repeated\n"
            "  --refresh        ignore the cache and ask every engine again\n"
            "  --timeout SECS   kill a probe that has not answered after SECS (default 30;\n"
            "                   durations like 90s or 2m work too)\n"
            "  --wait DUR       wait up to DUR for the device lock a bench, check or nightly\n"
            "                   holds (default: refuse at once, exit 8)\n"
            "  --discover       find engines and register the new ones (see above)\n"
            "  --dry-run        with --discover: list what would be registered, write nothing\n"
            "  --json           print JSON: {\"probes\": [...]} ({\"found\": [...]} with --discover)\n"
            "  --store PATH     the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                   (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help       this text\n\n"
            "exit: 0 every engine answered, 5 some engine is unknown (or, discovering, could\n"
            "not be identified), 1 no engines or no such engine (none found), 2 usage,\n"
            "3 a DIR holds no engine, 4 store error, 8 the devices are in use.\n\n"
            "example:\n"
            "  lvd probe --engine b9749-cuda --refresh\n"
            "  lvd probe --discover --dry-run\n");
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    int64_t secs;
    switch (c) {
    case 'a': o->all = 1; break;
    case 'e':
        o->engines = lvd_xrealloc(o->engines, (o->n_engines + 1) * sizeof *o->engines);
        o->engines[o->n_engines++] = arg;
        break;
    case 'r': o->refresh = 1; break;
    case 'D': o->discover = 1; break;
    case 'n': o->dry_run = 1; break;
    case 't':
        if (lvd_parse_duration(arg, &secs) != 0 || secs <= 0 || secs > 3600)
            return lvd_usage_error(TOOL, "--timeout wants 1 to 3600 seconds, not '%s'", arg);
        o->timeout_ms = (int)(secs * 1000);
        break;
    case 'w':
        if (lvd_parse_wait(TOOL, arg, &o->wait_s))
            return LVD_EXIT_USAGE;
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"all", no_argument, NULL, 'a'},         {"engine", required_argument, NULL, 'e'},
        {"refresh", no_argument, NULL, 'r'},     {"timeout", required_argument, NULL, 't'},
        {"discover", no_argument, NULL, 'D'},    {"dry-run", no_argument, NULL, 'n'},
        {"wait", required_argument, NULL, 'w'},
        LVD_TOOL_LONGOPTS,                       {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":h", longopts, usage, &o->t, option, o);
    if (rc == 0 && !o->discover)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc != 0)
        return rc;
    if (o->discover) {
        if (o->all || o->n_engines || o->refresh)
            return lvd_usage_error(TOOL, "--discover takes directories, not --all, --engine or --refresh");
        for (int i = optind; i < argc; i++)
            lvd_strv_push(&o->dirs, &o->n_dirs, lvd_xstrdup(argv[i]));
    } else if (o->dry_run) {
        return lvd_usage_error(TOOL, "--dry-run goes with --discover");
    }
    if (o->all && o->n_engines)
        return lvd_usage_error(TOOL, "--all and --engine exclude each other");
    return 0;
}

/* Loads the engines to probe into *v. Returns an exit code. */
static int select_engines(store *s, const options *o, lvd_engine **v, size_t *n)
{
    lvd_err err = {{0}};
    if (!o->n_engines) {
        if (store_engine_list(s, v, n, &err) != 0)
            return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        if (*n == 0) {
            lvd_error(TOOL, "%s: no engines registered (lvd fetch --register DIR --build ID)", store_path(s));
            return LVD_EXIT_FAIL;
        }
        return LVD_EXIT_OK;
    }
    *v = lvd_xcalloc(o->n_engines, sizeof **v);
    *n = 0;
    for (size_t i = 0; i < o->n_engines; i++) {
        int rc = engine_find(s, o->engines[i], &(*v)[*n], &err);
        if (rc != 0) {
            if (rc == 1)
                lvd_error(TOOL, "%s: no engine named '%s' (see lvd store engines)", store_path(s), o->engines[i]);
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
                   .timeout_ms = o->timeout_ms};
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
        lvd_error(TOOL, "no llama.cpp engine found (lvd fetch --register DIR --build ID registers one by hand)");
    fetch_discover_result_free(&r);
    store_close(s);
    return code;
}

static int probe(options o);

/* Parses, takes the device lock (a probe runs the engines), probes. */
int main(int argc, char **argv)
{
    options o = {0};
    int code = parse_options(argc, argv, &o);
    engine_devlock lock;
    if (code == 0)
        code = engine_devlock_tool(TOOL, o.t.store, o.wait_s * 1000, &lock);
    if (code != 0) {
        free(o.engines);
        lvd_strv_free(o.dirs);
        return code < 0 ? LVD_EXIT_OK : code;
    }
    code = probe(o);
    engine_devlock_release(&lock);
    return code;
}

static int probe(options o)
{
    int code;
    if (o.discover) {
        code = discover(&o);
        lvd_strv_free(o.dirs);
        free(o.engines);
        return code;
    }
    store *s;
    if ((code = store_tool_open(TOOL, o.t.store, 0, &s)) != 0) {
        free(o.engines);
        return code;
    }
    lvd_err err = {{0}};
    lvd_engine *engines = NULL;
    size_t n = 0;
    code = select_engines(s, &o, &engines, &n);
    lvd_probe *probes = lvd_xcalloc(n ? n : 1, sizeof *probes);
    int *cached = lvd_xcalloc(n ? n : 1, sizeof *cached);
    size_t done = 0;
    int unknown = 0, store_failed = 0;
    for (size_t i = 0; code == LVD_EXIT_OK && i < n; i++) {
        lvd_progress("probing %s (%zu/%zu)", engines[i].name, i + 1, n);
        if (engine_probe_engine_ex(s, &engines[i], o.refresh, o.timeout_ms, &probes[done], &cached[done], &err) != 0) {
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
    char pin[64], named[64];
    builds_pin_build_default(named, sizeof named);
    builds_resolve(named, engines, n, pin, sizeof pin); /* a SemVer pin: the build it stands for */
    if (code == LVD_EXIT_OK) {
        if (o.t.json) {
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
    free(o.engines);
    return code;
}
