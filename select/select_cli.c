/* select_cli.c: the `lvd select` tool's command line (sel_cli_main), run by
 * tools/lvd-select.c and, without a second process start, by the lvd
 * dispatcher (tools/lvd.c). Prints the llama-server launch line for a model
 * from the store (profile, verdict, heuristic, first engine), and with
 * --record computes and stores the model's verdict first (the nightly's step
 * after lvd bench). With --record --artifact SHA it records the verdict of a
 * model known by its sha256 only (imported results) and prints the verdict's
 * own launch line. The option table (the request step: the options land in
 * a sel_request) and the order of the calls only; the work is
 * select/select.c (the pipeline), select/verdict.c, select/choice.c (the
 * --artifact lines: sel_choice_record_artifact, the evidence page's too),
 * select/render.c (what is printed) and select/cache.h (the kept answer a
 * plain select prints when nothing it depends on changed, and keeps when
 * it computes one). */
#include "common/cli.h"
#include "common/opt_vocab.h"
#include "common/gguf_split.h"
#include "common/sha256.h"
#include "select/cache.h"
#include "select/choice.h"
#include "select/fallback.h"
#include "select/render.h"
#include "select/select.h"
#include "select/select_cli.h"
#include "select/verdict.h"
#include "store/store_tool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL "lvd-select"

typedef struct options {
    lvd_tool_opts t;         /* --store, --json, --host */
    const char *model;
    const char *artifact;    /* --artifact: record without the model file */
    const char *profile;
    int64_t ctx;
    int64_t free_mib;
    stats_objective objective;
    int explain;
    int record;
} options;

/* -c max: the measured ceiling (SEL_CTX_MAX); else a number of tokens. */
static int ctx_max(const lvd_opt *o, void *field, const char *arg, lvd_err *err)
{
    (void)o;
    (void)err;
    if (strcmp(arg, "max"))
        return 1;
    *(int64_t *)field = SEL_CTX_MAX;
    return 0;
}

#define WITH_MODEL .form = LVD_FORM(0)
static const lvd_opt table[] = {
    {LVD_OPT_MODEL, LVD_AT(model), WITH_MODEL, .req = LVD_FORM(0),
     .help = "the model (identified by its SHA-256, cached by path)"},
    {.spell = "--artifact", .arg = "SHA256", .kind = LVD_OPT_STR, LVD_AT(artifact), .form = LVD_FORM(1),
     .help = "with --record, instead of --model: the model by its sha256, for results imported from elsewhere "
             "(lvd store import --artifact); prints the verdict's launch line (the model's last known path, else "
             "the placeholder MODEL.gguf, said so) on the winning engine, whether or not it can serve here; no "
             "profile, no selection order"},
    {.spell = "--profile", .arg = "FILE", .kind = LVD_OPT_STR, LVD_AT(profile), WITH_MODEL,
     .help = "operator profile (key = value): backend or engine, device, ctx, fa, ctk, ctv, ngl, n-cpu-moe, ub, "
             "threads, env.NAME"},
    {LVD_OPT_CTX, LVD_AT(ctx), WITH_MODEL, .call = ctx_max,
     .help = "context to place and launch (default: the profile's, else twice the verdict's serving depth, else min(4096, the model's); 0 = the model's "
             "training context; max = the context ceiling lvd fit measured for the choice, less 5 %, rounded down "
             "to 256). A context above a measured ceiling is refused, with the ceiling"},
    {.spell = "--free-mib", .arg = "N", .kind = LVD_OPT_INT, .lo = 0, .hi = LVD_MIB_MAX, .unit = "MiB",
     LVD_AT(free_mib), WITH_MODEL, .help = "the device's free memory in MiB (default: the probe's figure)"},
    {STATS_OPT_OBJECTIVE, LVD_AT(objective)},
    {.spell = "--record", .kind = LVD_OPT_FLAG, LVD_AT(record), .req = LVD_FORM(1),
     .help = "first compute the verdict from the newest bench session and record it (after lvd bench and lvd "
             "check)"},
    {LVD_OPT_HOST},
    {LVD_OPT_JSON, .help = "print {rule, engine, backend, device, placement, argv, env, explain, ...} instead of "
                           "the line"},
    {.spell = "--explain", .kind = LVD_OPT_FLAG, LVD_AT(explain), WITH_MODEL,
     .help = "after the line, '# ' lines: which rule decided and why each rule above it did not"},
    {LVD_OPT_STORE},
    {0},
};

static const lvd_opt_tool tool = {
    .name = TOOL,
    .about = "Prints the llama-server launch line for a model, one shell-quoted line, from the store alone (no "
             "engine is run). The engine and device come from, in order:\n"
             "  1. the operator profile (--profile), when it names an engine, backend or device;\n"
             "  2. the model's verdict on this host, while the engines it compared are unchanged and the winner's "
             "correctness check passed;\n"
             "  3. the heuristic over the cached probes (old NVIDIA -> Vulkan, modern -> CUDA, AMD/Intel -> "
             "Vulkan, no accelerator -> CPU);\n"
             "  4. the first engine listing a device (a software rasterizer such as llvmpipe is none), else the "
             "CPU engine, else an engine listing only software devices, on the CPU.\n"
             "Then the placement (-ngl, --n-cpu-moe, -ub) for the device's free memory.",
    .opts = table,
    .forms = (const lvd_opt_form[]){{NULL, NULL}, {"--artifact", NULL}, {NULL, NULL}},
    .more = "environment: LVD_STORE_FALLBACK=FILE names a local SQLite copy of this host's verdicts that --record "
            "refreshes and that a plain select reads (with a warning) when the store cannot be opened (a database "
            "server out of reach).",
    .exits = "0 ok, 1 no engine can serve (or --record found no bench run, or the recorded verdict has no winner, "
             "or --ctx max has no valid ceiling), 2 usage, 3 bad model or profile (or a profile the probes cannot "
             "honour, or an artifact the store does not know, or -c above the measured ceiling), 4 store error.",
    .examples = "lvd select --model ~/models/qwen3-8b-q4_k_m.gguf --explain\n"
                "eval \"exec $(lvd select --model m.gguf)\"\n"
                "lvd select --record --artifact 9739...d --host h200",
};

/* Parses argv into o: 0, -1 after --help, or a usage error's exit code. */
static int parse_options(int argc, char **argv, options *o)
{
    o->ctx = o->free_mib = -1;
    lvd_opt_result r;
    int rc = lvd_opt_parse(&tool, argc, argv, o, &r);
    if (rc != 0)
        return rc;
    if (o->artifact && !lvd_sha256_valid(o->artifact))
        return lvd_usage_error(TOOL, "--artifact '%s' is not a SHA-256 (64 lowercase hex digits)", o->artifact);
    return 0;
}

/* $LVD_STORE_FALLBACK: the copy follows each recorded verdict; a copy that
 * cannot be written is said, never fatal (the verdict is recorded). */
static void refresh_fallback(store *s, const options *o)
{
    lvd_err err = {{0}};
    if (sel_fallback_refresh(s, o->t.host, &err) != 0)
        lvd_warn(TOOL, "fallback copy not refreshed: %s", err.msg);
}

/* --record: computes and stores the verdict; *v receives it. An exit code. */
static int record(store *s, const store_artifact *a, const options *o, lvd_verdict *v)
{
    sel_verdict_opts vo;
    sel_verdict_opts_init(&vo);
    vo.objective = o->objective;
    vo.host = o->t.host;
    lvd_err err = {{0}};
    int rc = sel_verdict_record(s, a->sha256, &vo, v, &err);
    if (rc != 0)
        return lvd_tool_fail(TOOL, &err, rc > 0 ? LVD_EXIT_FAIL : LVD_EXIT_STORE);
    refresh_fallback(s, o);
    return LVD_EXIT_OK;
}

/* --record --artifact: record (select/choice.h), then print the verdict's own launch line. */
static int record_artifact(const options *o)
{
    lvd_err err = {{0}};
    store *s;
    store_artifact a;
    lvd_verdict v;
    sel_choice_lines c;
    int code;
    if ((code = store_tool_open(TOOL, o->t.store, 0, &s)) != LVD_EXIT_OK)
        return code;
    sel_verdict_opts vo;
    sel_verdict_opts_init(&vo);
    vo.objective = o->objective;
    vo.host = o->t.host;
    if (sel_choice_record_artifact(s, o->artifact, &vo, &a, &v, &c, &code, &err) != 0) {
        store_close(s);
        return lvd_tool_fail(TOOL, &err, code);
    }
    refresh_fallback(s, o);
    sel_render_artifact(stdout, o->t.json, &v, &c);
    code = LVD_EXIT_OK;
    if (!v.engine_id) {
        lvd_error(TOOL, "%.12s on %s: the verdict has no winner: %s", v.artifact, v.host, v.explain ? v.explain : "");
        code = LVD_EXIT_FAIL;
    } else if (!c.engine) {
        lvd_error(TOOL, "the verdict's engine %lld is no longer registered: no launch line", (long long)v.engine_id);
        code = LVD_EXIT_FAIL;
    }
    sel_choice_lines_free(&c);
    lvd_verdict_free(&v);
    store_artifact_free(&a);
    store_close(s);
    return code;
}

/* The selection itself: the store at path opened, --record's verdict, the
 * pipeline, the output on out. m (NULL: none) notes the engine files while the store
 * is open (select/cache.h). An exit code. */
static int run(const options *o, const char *path, const sel_cache_ask *ask, FILE *out, sel_cache_miss *m)
{
    lvd_err err = {{0}};
    sel_profile profile;
    int have_profile = 0, code;
    if (o->profile) {
        if (sel_profile_load(o->profile, &profile, &err) != 0)
            return lvd_tool_fail(TOOL, &err, LVD_EXIT_INPUT);
        have_profile = 1;
    }
    store *s = NULL;
    store_artifact a;
    lvd_verdict v = {0};
    int recorded = 0;
    sel_result r = {0};
    if (sel_open_identify(path, o->model, o->record, &s, &a, &code, &err) != 0) {
        char *why = NULL;
        if (o->record || sel_fallback_open(path, o->model, &s, &a, &code, &why, &err) != 1) {
            lvd_error(TOOL, "%s", err.msg);
            goto out;
        }
        lvd_warn(TOOL, "%s; reading the fallback copy %s", why, sel_fallback_path());
        free(why);
        m = NULL; /* not the store's answer */
    }
    if (o->record) {
        code = record(s, &a, o, &v);
        if (code != LVD_EXIT_OK)
            goto out;
        recorded = 1;
    }
    sel_request rq;
    sel_request_init(&rq);
    rq.model = ask->first; /* the launch line names a split model's first shard, whichever was given */
    rq.profile = have_profile ? &profile : NULL;
    rq.ctx = o->ctx;
    rq.free_mib = o->free_mib;
    rq.objective = o->objective;
    rq.host = o->t.host;
    if (sel_select(s, &a, &rq, &r, &code, &err) != 0) {
        lvd_error(TOOL, "%s", err.msg);
        goto out;
    }
    sel_cache_watch(m, s);
    if (o->t.json)
        lvd_json_emit(out, sel_render_json(&r, recorded ? &v : NULL));
    else
        sel_render_text(out, &r, recorded ? &v : NULL, o->explain);
    code = LVD_EXIT_OK;
out:
    sel_result_free(&r);
    if (recorded)
        lvd_verdict_free(&v);
    store_artifact_free(&a);
    store_close(s);
    if (have_profile)
        sel_profile_free(&profile);
    return code;
}

/* A selection whose answer may be kept (m; NULL: run as it is): its output
 * held until the store is closed, then printed (print) and kept. */
static int run_kept(const options *o, const char *path, const sel_cache_ask *ask, sel_cache_miss *m, int print)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = m ? open_memstream(&buf, &len) : NULL;
    if (!out) {
        sel_cache_keep(m, LVD_EXIT_FAIL, NULL, NULL);
        return print ? run(o, path, ask, stdout, NULL) : LVD_EXIT_OK;
    }
    lvd_sb diag = {0};
    lvd_diag_capture(&diag);
    int code = run(o, path, ask, out, m);
    lvd_diag_capture(NULL);
    fclose(out);
    if (print) {
        fwrite(diag.buf, 1, diag.len, stderr);
        fwrite(buf, 1, len, stdout);
    }
    lvd_sb said = {.buf = buf, .len = len, .cap = len + 1};
    sel_cache_keep(m, code, &said, &diag);
    lvd_sb_free(&diag);
    free(buf);
    return code;
}

/* The options as the cache keys a question (all but --record). malloc'd. */
static char *ask_options(const options *o)
{
    char objective[64];
    stats_objective_name(&o->objective, objective, sizeof objective);
    return lvd_xasprintf("ctx=%lld free-mib=%lld objective=%s json=%d explain=%d host=%s", (long long)o->ctx,
                         (long long)o->free_mib, objective, o->t.json, o->explain, o->t.host ? o->t.host : "-");
}

/* After --record: keeps the answer of the plain select with the same
 * options (no --json, no --explain), printing nothing, so that the select
 * a service runs after the nightly's --record finds it (select/cache.h). */
static void keep_plain(const options *o, const char *path, const sel_cache_ask *ask)
{
    options plain = *o;
    plain.record = plain.t.json = plain.explain = 0;
    char *opts = ask_options(&plain);
    sel_cache_ask pa = *ask;
    pa.options = opts;
    sel_cache_miss *m = sel_cache_begin(&pa, 1);
    if (m)
        run_kept(&plain, path, &pa, m, 0);
    free(opts);
}

int sel_cli_main(int argc, char **argv)
{
    options o = {0};
    int code = parse_options(argc, argv, &o);
    if (code != 0)
        return code < 0 ? LVD_EXIT_OK : code;
    if (o.artifact)
        return record_artifact(&o);
    char *path = store_default_path(o.t.store), *first = gguf_split_first(o.model), *opts = ask_options(&o);
    char *real = store_is_remote(path) ? NULL : realpath(path, NULL); /* --store or LVD_STORE, one question */
    sel_cache_ask ask = {.store = real ? real : path, .model = o.model, .first = first, .profile = o.profile,
                         .options = opts};
    if (o.record) { /* writes: never answered from the cache */
        code = run(&o, path, &ask, stdout, NULL);
        if (code == LVD_EXIT_OK) {
            fflush(stdout);
            keep_plain(&o, path, &ask);
        }
    } else if ((code = sel_cache_serve(&ask)) < 0) {
        code = run_kept(&o, path, &ask, sel_cache_begin(&ask, 0), 1);
    }
    free(opts);
    free(first);
    free(real);
    free(path);
    return code;
}
