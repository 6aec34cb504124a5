/* lvd-pin.c: the `lvd pin` tool. Decides whether the candidate build
 * replaces the pinned one, records the night's decision, and with --promote
 * rewrites the pin file. Option parsing and printing only; the rules are
 * select/pin.c. */
#include "common/cli.h"
#include "builds/asset.h"
#include "builds/pinfile.h"
#include "select/armset.h"
#include "select/pin.h"
#include "select/pin_fleet.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-pin"

typedef struct options {
    lvd_tool_opts t;    /* --store, --json */
    const char *pin_file;
    const char *candidate;
    int promote;
    int no_record;
    int fleet;          /* --fleet */
} options;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lvd pin --pin-file FILE [--candidate BUILD] [--promote] [--no-record]\n"
            "               [--host NAME | --fleet] [--json] [--store PATH]\n\n"
            "Compares the candidate build against the pinned one for every model, backend, arm\n"
            "and test this host measured (newest session, kept samples) and decides:\n"
            "promote only when no comparison regresses (95 %% CI low >= 0.98), at least one is\n"
            "a win (sequential interval low > 1.02, stats.h), every correctness check of the\n"
            "candidate passed, and the previous decision for the same two builds, made on\n"
            "other measurements, would also have promoted. Otherwise the pin is kept and the\n"
            "rule that held it is printed: \"regression\" only for a comparison shown slower\n"
            "(CI low < 0.98 and CI high < 1), \"inconclusive: ... CI reaches -2.3 %%, needs more\n"
            "samples\" when the CI is too wide to clear 0.98 (the nightly re-measures those\n"
            "arms). A registered (local) build has no release digest to record: fetch and\n"
            "measure the release, or move the pin by hand. Each run records its decision.\n\n"
            "options:\n"
            "  --pin-file FILE  the pin file (build, flavour, sha256.<flavour>)\n"
            "  --candidate B    the candidate build (default: the newest fetched build that is\n"
            "                   not the pin)\n"
            "  --promote        when the decision is promote, rewrite FILE atomically with the\n"
            "                   candidate's build and the digest recorded when it was fetched\n"
            "                   (comments kept); never touches a running engine\n"
            "  --no-record      print the decision without recording it\n"
            "  --host NAME      whose measurements (default: this machine, or $LVD_HOST)\n"
            "  --fleet          every host of the store: each judged by the rules above; the\n"
            "                   candidate is promoted only when every host that measured both\n"
            "                   builds shows no regression and passes its checks, and at least\n"
            "                   one shows a win; the line names the host that held it back\n"
            "                   (regression on gpu-box-3: tg128 on vulkan -4.1 %% ...); --json\n"
            "                   adds \"hosts\", each host's outcome\n"
            "  --json           print the decision with every comparison as JSON\n"
            "  --store PATH     the store: an SQLite file or a PostgreSQL URI (postgresql://...)\n"
            "                   (default $LVD_STORE, else $XDG_DATA_HOME/llama-verdict/store.db)\n"
            "  -h, --help       this text\n\n"
            "exit: 0 decided (keep or promote), 1 nothing to compare (no candidate measured),\n"
            "2 usage, 3 bad pin file, 4 store error.\n\n"
            "example:\n"
            "  lvd pin --pin-file ci/llama.pin --promote && git -C ci diff llama.pin\n");
}

/* One of this tool's own options (lvd_option_fn). */
static int option(void *opts, int c, const char *arg)
{
    options *o = opts;
    switch (c) {
    case 'f': o->pin_file = arg; break;
    case 'c':
        if (!builds_valid(arg))
            return lvd_usage_error(TOOL, "--candidate wants a build like b10716, not '%s'", arg);
        o->candidate = arg;
        break;
    case 'p': o->promote = 1; break;
    case 'n': o->no_record = 1; break;
    case 'F': o->fleet = 1; break;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"pin-file", required_argument, NULL, 'f'}, {"candidate", required_argument, NULL, 'c'},
        {"promote", no_argument, NULL, 'p'},        {"no-record", no_argument, NULL, 'n'},
        {"fleet", no_argument, NULL, 'F'},
        LVD_TOOL_HOST_LONGOPT,                      LVD_TOOL_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int rc = lvd_tool_parse(TOOL, argc, argv, ":h", longopts, usage, &o->t, option, o);
    if (rc == 0)
        rc = lvd_tool_no_operands(TOOL, argc, argv);
    if (rc != 0)
        return rc;
    if (!o->pin_file)
        return lvd_usage_error(TOOL, "--pin-file FILE is required");
    if (o->fleet && o->t.host)
        return lvd_usage_error(TOOL, "--fleet judges every host; it excludes --host");
    if (o->promote && o->no_record)
        return lvd_usage_error(TOOL, "--promote records the decision; it excludes --no-record");
    return 0;
}

/* The comparisons, one a line; the arm column is as wide as its widest
 * arm's words (never cut: "ngl 99, fa 0, ub 512, ctk f16, ctv f16, t 16"). */
static void print_pairs(FILE *f, const sel_pin_eval *e)
{
    char **briefs = lvd_xcalloc(e->n_pairs, sizeof *briefs);
    int w = 3;
    for (size_t i = 0; i < e->n_pairs; i++) {
        briefs[i] = sel_params_brief(&e->pairs[i].params);
        int len = (int)strlen(briefs[i]);
        w = len > w ? len : w;
    }
    fprintf(f, "\ncandidate against pinned (median t/s; delta with 95 %% CI; Mann-Whitney p):\n");
    fprintf(f, "  %-12s  %-8s  %-*s  %-8s  %10s  %10s  %-28s  %-6s\n", "model", "backend", w, "arm", "test",
            "pinned", "candidate", "delta [CI]", "p");
    for (size_t i = 0; i < e->n_pairs; i++) {
        const sel_pin_pair *x = &e->pairs[i];
        lvd_sb d = {0};
        sel_pin_fmt_pct(&d, x->cmp.ratio);
        lvd_sb_adds(&d, " [");
        sel_pin_fmt_pct(&d, x->cmp.ci_lo);
        lvd_sb_adds(&d, ", ");
        sel_pin_fmt_pct(&d, x->cmp.ci_hi);
        lvd_sb_adds(&d, "]");
        fprintf(f, "  %-12.12s  %-8s  %-*s  %-8s  %10.1f  %10.1f  %-28s  %.4f  %s\n", x->artifact, x->backend, w,
                briefs[i], x->test, x->cmp.b.median, x->cmp.a.median, lvd_sb_str(&d), x->cmp.p,
                sel_pin_word_name(sel_pin_pair_word(&x->cmp)));
        lvd_sb_free(&d);
        free(briefs[i]);
    }
    free(briefs);
}

static void print_text(FILE *f, const sel_pin_eval *e, const sel_pin_verdict *v, const char *pin_file,
                       int applied)
{
    fprintf(f, "pinned %s (%s), candidate %s: %s\n", e->pinned_build, e->flavour ? e->flavour : "-",
           e->candidate_build ? e->candidate_build : "none", v->promote ? "promote" : "keep");
    fprintf(f, "  %s\n", v->rule);
    if (e->n_pairs)
        print_pairs(f, e);
    if (e->n_issues) {
        fprintf(f, "\nissues:\n");
        for (size_t i = 0; i < e->n_issues; i++) {
            const sel_pin_issue *x = &e->issues[i];
            fprintf(f, "  %s %s %s (model %.12s): %s%s%s\n", x->kind, x->backend, x->device[0] ? x->device : "CPU",
                   x->artifact, x->status, x->what ? ": " : "", x->what ? x->what : "");
        }
    }
    if (applied)
        fprintf(f, "\n%s: build %s, sha256.%s = %s\n", pin_file, e->candidate_build, e->flavour,
               e->candidate_digest);
}

/* --fleet: the decision, then each host's outcome, one line each. */
static void print_fleet(FILE *f, const sel_pin_fleet *fl, const char *pin_file, int applied)
{
    const sel_pin_eval *e = &fl->all;
    fprintf(f, "pinned %s (%s), candidate %s: %s\n", e->pinned_build, e->flavour ? e->flavour : "-",
            e->candidate_build ? e->candidate_build : "none", fl->v.promote ? "promote" : "keep");
    fprintf(f, "  %s\n\nper host:\n", fl->v.rule);
    for (size_t i = 0; i < fl->n_hosts; i++) {
        const sel_pin_fleet_host *h = &fl->hosts[i];
        fprintf(f, "  %-20s  %-16s  %s\n", h->host, sel_pin_hold_name(h->v.hold), h->v.rule);
    }
    fprintf(f, "\nevery host's comparisons: --json\n");
    if (applied)
        fprintf(f, "\n%s: build %s, sha256.%s = %s\n", pin_file, e->candidate_build, e->flavour, e->candidate_digest);
}

int main(int argc, char **argv)
{
    options o = {0};
    int code = parse_options(argc, argv, &o);
    if (code != 0)
        return code < 0 ? LVD_EXIT_OK : code;
    lvd_err err = {{0}};
    builds_pin pin;
    if (builds_pin_load(o.pin_file, &pin, &err) != 0)
        return lvd_tool_fail(TOOL, &err, LVD_EXIT_INPUT);
    if (o.candidate && !strcmp(o.candidate, builds_pin_build(&pin))) {
        builds_pin_free(&pin);
        return lvd_usage_error(TOOL, "--candidate %s is the pinned build", o.candidate);
    }
    store *s;
    if ((code = store_tool_open(TOOL, o.t.store, 0, &s)) != LVD_EXIT_OK) {
        builds_pin_free(&pin);
        return code;
    }
    sel_pin_opts po = {.candidate = o.candidate, .host = o.t.host};
    sel_pin_fleet fl = {0};
    sel_pin_eval e;
    sel_pin_verdict v;
    int applied = 0;
    if (o.fleet) {
        if (sel_pin_fleet_gather(s, &pin, &po, &fl, &err) != 0) {
            code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
            goto out;
        }
        sel_pin_fleet_judge(&fl);
        e = fl.all; /* the fleet's evaluation and decision; fl keeps ownership */
        v = fl.v;
    } else if (sel_pin_gather(s, &pin, &po, &e, &err) != 0) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        goto out;
    } else {
        sel_pin_judge(&e, &v);
    }
    if (o.promote && v.promote) {
        if (sel_pin_apply(s, &pin, o.pin_file, &e, &err) != 0) {
            code = lvd_tool_fail(TOOL, &err, LVD_EXIT_FAIL);
            goto out_eval;
        }
        applied = 1;
    }
    if (!o.no_record && sel_pin_record(s, &e, &v, applied, o.fleet ? &fl : NULL, &err) != 0) {
        code = lvd_tool_fail(TOOL, &err, LVD_EXIT_STORE);
        goto out_eval;
    }
    if (o.t.json) {
        cJSON *j = sel_pin_decision_json(&e, &v, applied, o.fleet ? &fl : NULL);
        cJSON_AddStringToObject(j, "pin_file", o.pin_file);
        cJSON_AddBoolToObject(j, "recorded", !o.no_record);
        lvd_json_emit(stdout, j);
    } else if (o.fleet) {
        print_fleet(stdout, &fl, o.pin_file, applied);
    } else {
        print_text(stdout, &e, &v, o.pin_file, applied);
    }
    code = v.hold == SEL_PIN_NO_CANDIDATE ? LVD_EXIT_FAIL : LVD_EXIT_OK;
out_eval:
    if (o.fleet)
        sel_pin_fleet_free(&fl);
    else
        sel_pin_eval_free(&e);
out:
    store_close(s);
    builds_pin_free(&pin);
    return code;
}
