/* lvd-evidence.c: the `lvd evidence` tool. Reads the store into the page
 * model, renders the markdown page and its SVG charts, and writes them all
 * or none. Option parsing and printing only; the work is evidence/. */
#include "common/cli.h"
#include "evidence/fleet.h"
#include "evidence/model.h"
#include "evidence/render.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-evidence"
#define OUT_DEFAULT "docs/evidence/backend-selection.md"

typedef struct options {
    lvd_tool_opts t;    /* --store, --json */
    const char *out;
    int out_given;       /* --out was passed (--fleet refuses it) */
    const char *title;
    const char **models;
    size_t n_models;
    size_t nights;
    const char **notes;  /* --note */
    size_t n_notes;
    int fleet;           /* --fleet */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd evidence [--out FILE] [-m SHA256|PATH]... [--nights N] [--title TEXT]\n"
            "                    [--note TEXT]... [--host NAME] [--json] [--store PATH]\n"
            "       lvd evidence --fleet [--json] [--store PATH]\n\n"
            "Writes the evidence page: per model, the engines and devices measured on this host\n"
            "(pp and tg medians with 95 %% CI, deltas against the CPU and the next-ranked arm,\n"
            "samples kept and warm-up dropped, correctness), the recorded verdict with its rule,\n"
            "placement and launch line, failed and excluded arms with why, and the pin decisions;\n"
            "SVG charts beside the page (bars with CI whiskers for pp and tg, tg and pp across nights).\n"
            "The same store gives the same bytes; the page and its charts are written all or none.\n\n"
            "options:\n"
            "  --out FILE       the page (default " OUT_DEFAULT "); charts are\n"
            "                   written beside it as STEM-SHA12-{pp,tg,tg-history,pp-history}.svg\n"
            "  -m, --model M    a model by sha256 (or a unique prefix of 8+ hex digits) or by file\n"
            "                   path; repeatable (default: every model measured on this host)\n"
            "  --nights N       the newest N nights shown (UTC dates with a run or a pin decision,\n"
            "                   never counts of sessions or decisions): history and pin decisions\n"
            "                   (default 14)\n"
            "  --title TEXT     the page title (default \"Backend selection evidence\")\n"
            "  --note TEXT      a line shown at the top of the page (repeatable; the nightly says\n"
            "                   there that a night was interrupted)\n"
            "  --host NAME      whose measurements (default: this machine, or $LVD_HOST)\n"
            "  --fleet          print the fleet instead (every host of the store): per host its\n"
            "                   GPUs and winner per model, and the backend map (card x backend:\n"
            "                   median tg and pp ratio against the best other backend, with its\n"
            "                   95 %% interval across hosts and n hosts); a page of a store with\n"
            "                   several hosts ends with the same section\n"
            "  --json           print what was written (with --fleet: the fleet) as JSON\n"
            "  --store PATH     the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                   (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help       this text\n\n"
            "exit: 0 written, 1 nothing measured or cannot write, 2 usage, 3 a --model unknown or\n"
            "its file unreadable, 4 store error.\n\n"
            "example:\n"
            "  lvd evidence --out docs/evidence/backend-selection.md --nights 30\n"
            "  lvd evidence --fleet --store /srv/lvd/fleet.db\n");
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    int64_t v;
    switch (c) {
    case 'o':
        if (!*arg)
            return lvd_usage_error(TOOL, "--out wants a file name");
        o->out = arg;
        o->out_given = 1;
        break;
    case 'm':
        o->models = lvd_xrealloc(o->models, (o->n_models + 1) * sizeof *o->models);
        o->models[o->n_models++] = arg;
        break;
    case 'n':
        if (lvd_parse_i64(arg, &v) != 0 || v < 1 || v > 3650)
            return lvd_usage_error(TOOL, "--nights wants 1 to 3650, not '%s'", arg);
        o->nights = (size_t)v;
        break;
    case 't': o->title = arg; break;
    case 'F': o->fleet = 1; break;
    case 'N':
        o->notes = lvd_xrealloc(o->notes, (o->n_notes + 1) * sizeof *o->notes);
        o->notes[o->n_notes++] = arg;
        break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"out", required_argument, NULL, 'o'},   {"model", required_argument, NULL, 'm'},
        {"nights", required_argument, NULL, 'n'}, {"title", required_argument, NULL, 't'},
        {"note", required_argument, NULL, 'N'},   {"fleet", no_argument, NULL, 'F'},
        LVD_TOOL_HOST_LONGOPT,                   LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":h", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc == 0 && o->fleet && (o->n_models || o->t.host))
        return lvd_usage_error(TOOL, "--fleet shows every host and model; it excludes --model and --host");
    if (rc == 0 && o->fleet && o->out_given)
        return lvd_usage_error(TOOL, "--fleet prints to stdout; it excludes --out (lvd evidence --fleet > FILE)");
    return rc;
}

static void print_result(const ev_page *p, const ev_file *files, size_t n, int json)
{
    if (json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "page", files[n - 1].path);
        cJSON *fs = cJSON_AddArrayToObject(j, "files");
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(fs, cJSON_CreateString(files[i].path));
        cJSON *ms = cJSON_AddArrayToObject(j, "models");
        for (size_t i = 0; i < p->n_models; i++) {
            const ev_model *m = &p->models[i];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "sha256", m->sha256);
            cJSON_AddStringToObject(x, "name", m->name);
            cJSON_AddNumberToObject(x, "arms", (double)m->n_arms);
            if (m->n_arms && m->arms[0].rank == 1)
                cJSON_AddStringToObject(x, "leader", m->arms[0].label);
            else
                cJSON_AddNullToObject(x, "leader");
            if (m->has_verdict)
                cJSON_AddStringToObject(x, "verdict", m->verdict_arm);
            else
                cJSON_AddNullToObject(x, "verdict");
            cJSON_AddItemToArray(ms, x);
        }
        cJSON_AddNumberToObject(j, "pin_decisions", (double)p->pin.n_hist);
        lvd_json_emit(stdout, j);
        return;
    }
    printf("wrote %s (%zu model%s, %zu chart%s)\n", files[n - 1].path, p->n_models, p->n_models == 1 ? "" : "s",
           n - 1, n == 2 ? "" : "s");
}

/* --fleet: the fleet view on stdout. */
static int print_fleet(store *s, int json)
{
    lvd_err err = {{0}};
    ev_fleet f;
    if (ev_fleet_load(s, &f, &err) != 0)
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
    int code = LVD_EXIT_OK;
    if (!f.n_hosts) {
        lvd_error(TOOL, "%s: nothing measured on any host (lvd bench, or lvd store import)", store_path(s));
        code = LVD_EXIT_FAIL;
    } else if (json) {
        lvd_json_emit(stdout, ev_fleet_json(&f));
    } else {
        lvd_sb sb = {0};
        ev_fleet_render_markdown(&f, &sb);
        fputs(lvd_sb_str(&sb), stdout);
        lvd_sb_free(&sb);
    }
    ev_fleet_free(&f);
    return code;
}

int main(int argc, char **argv)
{
    options o = {.out = OUT_DEFAULT};
    int code = parse_options(argc, argv, &o);
    if (code != 0) {
        free(o.models);
        free(o.notes);
        return code < 0 ? LVD_EXIT_OK : code;
    }
    store *s;
    if ((code = store_tool_open(TOOL, o.t.store, STORE_OPEN_READONLY, &s)) != LVD_EXIT_OK) {
        free(o.models);
        free(o.notes);
        return code;
    }
    lvd_err err = {{0}};
    if (o.fleet) {
        code = print_fleet(s, o.t.json);
        goto out;
    }
    ev_opts eo = {.title = o.title, .host = o.t.host, .models = o.models, .n_models = o.n_models, .nights = o.nights};
    ev_page page;
    int rc = ev_page_load(s, &eo, &page, &err);
    if (rc != 0) {
        code = lvd_tool_fail(TOOL, &err, rc == -2 ? LVD_EXIT_INPUT : LVD_EXIT_STORE);
        goto out;
    }
    if (!page.n_models && !page.pin.n_hist) {
        lvd_error(TOOL, "%s: nothing measured on host %s (lvd bench, or lvd store import)", store_path(s),
                  page.host);
        code = LVD_EXIT_FAIL;
        ev_page_free(&page);
        goto out;
    }
    page.notes = o.notes;
    page.n_notes = o.n_notes;
    ev_file *files;
    size_t n;
    ev_render_files(&page, o.out, &files, &n);
    if (ev_write_files(files, n, &err) != 0) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_FAIL);
    } else {
        print_result(&page, files, n, o.t.json);
        code = LVD_EXIT_OK;
    }
    ev_files_free(files, n);
    ev_page_free(&page);
out:
    store_close(s);
    free(o.models);
    free(o.notes);
    return code;
}
