/* lvd-nightly.c: the nightly job's command line (see nightly/nightly.h);
 * scripts/nightly builds the project and runs this. */
#include "common/cli.h"
#include "common/paths.h"
#include "engine/devlock.h"
#include "nightly/lock.h"
#include "nightly/nightly.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOOL "lvd-nightly"

typedef struct options {
    lvd_tool_opts t;    /* --store, --json */
    const char *config;
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd nightly [--config FILE] [--store PATH] [--json]\n\n"
            "The main job, for a cron line or a systemd timer: takes a lock, then fetches\n"
            "the pinned and candidate builds (lvd fetch), probes every engine (lvd probe),\n"
            "checks each device against the CPU (lvd check), benchmarks every engine and\n"
            "device (lvd bench), records the verdicts (lvd select --record), decides the\n"
            "pin (lvd pin) and writes the evidence page (lvd evidence). A step that fails\n"
            "is logged and the job goes on with what it has.\n\n"
            "  --config FILE  the job's configuration (`key = value` lines; see README).\n"
            "                 Without it: the bundled tiny model, the shipped pin file\n"
            "                 (never rewritten), the engines already registered\n"
            "  --store PATH   the store (default $LVD_STORE, else the XDG default): a file,\n"
            "                 or a PostgreSQL URI; when that cannot be opened, the night\n"
            "                 records into the local fallback_store and says so\n"
            "  --json         print the steps and their outcomes as JSON\n"
            "  -h, --help     this text\n\n"
            "Exit status: 0 every step succeeded; 5 the job finished but some step failed\n"
            "or was partial (see the log); 1 no evidence page could be written; 2 usage;\n"
            "3 bad config; 8 another nightly holds the lock, or the devices stayed in use\n"
            "past device_wait (the line names the holder's pid).\n\n"
            "It holds the device lock (STORE.devices.lock, or $LVD_LOCK_DIR/devices.lock) all\n"
            "night; its steps die with it, whatever ends it. A night that never ended is\n"
            "resumed by the next one (its session continued; see README).\n\n"
            "Example (crontab, 02:30 every night):\n"
            "  30 2 * * *  /opt/llama-verdict/scripts/nightly --config ~/verdict/nightly.conf\n");
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    switch (c) {
    case 'c': o->config = arg; break;
    }
    return 0;
}

static int parse(int argc, char **argv, options *o)
{
    static const struct option longs[] = {
        {"config", required_argument, NULL, 'c'},
        LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":h", longs, usage, &o->t, option, o);
    return rc != 0 ? rc : lvd_tool_no_operands(TOOL, argc, argv);
}

/* Every step opens the same store: created once here, so that a first night
 * on a new machine does not fail its read-only steps for want of a file. A
 * PostgreSQL store that cannot be opened (the server unreachable, ...) is
 * replaced by the local fallback store, said on stderr and in the log:
 * *store becomes it and *fallback_from the shared store as shown. */
static int open_store(const night_config *cfg, char **store, char **fallback_from)
{
    struct store *st;
    lvd_err err = {{0}};
    if (store_open(*store, STORE_OPEN_CREATE, &st, &err) == 0) {
        store_close(st);
        return LVD_EXIT_OK;
    }
    if (!store_is_remote(*store))
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    lvd_warn(TOOL, "%s", err.msg);
    lvd_warn(TOOL, "this night records into the local fallback store %s (lvd store merge pushes it later)",
             cfg->fallback_store);
    *fallback_from = store_display(*store);
    free(*store);
    *store = lvd_xstrdup(cfg->fallback_store);
    if (store_tool_open(TOOL, *store, STORE_OPEN_CREATE, &st) != LVD_EXIT_OK)
        return LVD_EXIT_STORE;
    store_close(st);
    return LVD_EXIT_OK;
}

static void print_json(const night_report *r, const night_config *c, const night_opts *no)
{
    cJSON *root = cJSON_CreateObject();
    char *shown = store_display(no->store);
    cJSON_AddStringToObject(root, "store", shown);
    free(shown);
    if (no->fallback_from)
        cJSON_AddStringToObject(root, "store_fallback_from", no->fallback_from);
    else
        cJSON_AddNullToObject(root, "store_fallback_from");
    cJSON_AddStringToObject(root, "session", r->session);
    cJSON_AddStringToObject(root, "config", c->source);
    cJSON_AddBoolToObject(root, "offline", r->offline);
    cJSON_AddBoolToObject(root, "resumed", r->resumed);
    if (r->note)
        cJSON_AddStringToObject(root, "interrupted", r->note);
    else
        cJSON_AddNullToObject(root, "interrupted");
    if (r->candidate)
        cJSON_AddStringToObject(root, "candidate", r->candidate);
    else
        cJSON_AddNullToObject(root, "candidate");
    cJSON_AddStringToObject(root, "evidence", c->evidence);
    cJSON_AddStringToObject(root, "log", c->log);
    cJSON_AddNumberToObject(root, "exit", r->exit_code);
    cJSON *steps = cJSON_AddArrayToObject(root, "steps");
    for (size_t i = 0; i < r->n_steps; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "step", r->steps[i].name);
        cJSON_AddNumberToObject(s, "exit", r->steps[i].exit_code);
        cJSON_AddStringToObject(s, "outcome", r->steps[i].outcome ? r->steps[i].outcome : "");
        cJSON_AddNumberToObject(s, "ms", (double)r->steps[i].ms);
        cJSON_AddItemToArray(steps, s);
    }
    lvd_json_emit(stdout, root);
}

int main(int argc, char **argv)
{
    options o = {0};
    int rc = parse(argc, argv, &o);
    if (rc)
        return rc < 0 ? LVD_EXIT_OK : rc;
    lvd_err err = {{0}};
    night_config cfg;
    if (night_config_load(o.config, &cfg, &err))
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_INPUT);
    char *store = store_default_path(o.t.store);
    int lock = -1;
    if (night_lock(store, &lock, &err)) {
        lvd_error(TOOL, "%s", err.msg);
        free(store);
        night_config_free(&cfg);
        return LVD_EXIT_LOCKED;
    }
    /* the store before the device lock: the steps' tools take that lock by
       the store they are given, the fallback store when it replaces the shared one */
    char *fallback_from = NULL;
    engine_devlock devices;
    if ((rc = open_store(&cfg, &store, &fallback_from)) != LVD_EXIT_OK ||
        (rc = engine_devlock_tool(TOOL, store, cfg.device_wait_s * 1000, &devices)) != LVD_EXIT_OK) {
        night_unlock(lock);
        free(store);
        free(fallback_from);
        night_config_free(&cfg);
        return rc;
    }
    char *dir = lvd_exe_dir();
    if (!dir)
        dir = lvd_xstrdup(".");
    night_opts no = {.cfg = &cfg, .store = store, .fallback_from = fallback_from, .tools_dir = dir,
                     .console = o.t.json ? NULL : stdout};
    night_report r;
    if (night_run(&no, &r, &err)) {
        rc = lvd_tool_fail(TOOL, &err, LVD_EXIT_FAIL);
    } else {
        if (o.t.json)
            print_json(&r, &cfg, &no);
        rc = r.exit_code;
    }
    night_report_free(&r);
    engine_devlock_release(&devices);
    night_unlock(lock);
    free(dir);
    free(store);
    free(fallback_from);
    night_config_free(&cfg);
    return rc;
}
