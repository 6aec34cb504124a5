/* lvd-pin.c: the `lvd pin` tool. Decides whether the candidate build
 * replaces the pinned one, records the night's decision, and with --promote
 * rewrites the pin file. Option parsing and printing only; the rules are
 * select/pin.c. */
#include "builds/asset.h"
#include "builds/pinfile.h"
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "select/pin.h"
#include "select/pin_fleet.h"
#include "store/store.h"
#include "store/store_tool.h"

#include <cjson/cJSON.h>
#include <string.h>

#define TOOL "lvd-pin"

typedef struct options {
    lvd_tool_opts t; /* --store, --json, --host */
    const char *pin_file;
    const char *candidate;
    int promote;
    int no_record;
    int fleet;
} options;

static const lvd_opt table[] = {
    {.spell = "--pin-file", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(pin_file), .req = LVD_FORM(0) | LVD_FORM(1),
     .help = "the pin file (build, flavour, sha256.<flavour>)"},
    {.spell = "--candidate", .arg = "B", .kind = LVD_OPT_CALL, .call = builds_opt_build, LVD_AT(candidate),
     .help = "the candidate build (default: the newest fetched build that is not the pin)"},
    {.spell = "--promote", .kind = LVD_OPT_FLAG, LVD_AT(promote),
     .help = "when the decision is promote, rewrite FILE atomically with the candidate's build and the digest "
             "recorded when it was fetched (comments kept); never touches a running engine"},
    {.spell = "--no-record", .kind = LVD_OPT_FLAG, LVD_AT(no_record),
     .help = "print the decision without recording it"},
    {LVD_OPT_HOST, .form = LVD_FORM(0)},
    {.spell = "--fleet", .kind = LVD_OPT_FLAG, LVD_AT(fleet), .form = LVD_FORM(1),
     .help = "every host of the store: each judged by the rules above; the candidate is promoted only when every "
             "host that measured both builds shows no regression and passes its checks, and at least one shows a "
             "win; the line names the host that held it back (regression on gpu-box-3: tg128 on vulkan -4.1 % ...); "
             "--json adds \"hosts\", each host's outcome"},
    {LVD_OPT_JSON, .help = "print the decision with every comparison as JSON"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Compares the candidate build against the pinned one for every model, backend, arm and test this host "
             "measured (newest session, kept samples) and decides: promote only when no comparison regresses (95 % "
             "CI low >= 0.98), at least one is a win (sequential interval low > 1.02, stats.h), every correctness "
             "check of the candidate passed, and the previous decision for the same two builds, made on other "
             "measurements, would also have promoted. Otherwise the pin is kept and the rule that held it is "
             "printed: \"regression\" only for a comparison shown slower (CI low < 0.98 and CI high < 1), "
             "\"inconclusive: ... CI reaches -2.3 %, needs more samples\" when the CI is too wide to clear 0.98 (the "
             "nightly re-measures those arms). A registered (local) build has no release digest to record: fetch "
             "and measure the release, or move the pin by hand. Each run records its decision.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, NULL}, {"--fleet", NULL}, {NULL, NULL}},
    .exits = "0 decided (keep or promote), 1 nothing to compare (no candidate measured), 2 usage, 3 bad pin file, 4 "
             "store error.",
    .examples = "lvd pin --pin-file ci/llama.pin --promote && git -C ci diff llama.pin",
};

int main(int argc, char **argv)
{
    options o = {0};
    lvd_opt_result r;
    int code = lvd_opt_parse(&tool, argc, argv, &o, &r);
    if (code == 0 && o.promote && o.no_record)
        code = lvd_usage_error(TOOL, "--promote records the decision; it excludes --no-record");
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
        sel_pin_fleet_print(stdout, &fl, o.pin_file, applied);
    } else {
        sel_pin_print(stdout, &e, &v, o.pin_file, applied);
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
