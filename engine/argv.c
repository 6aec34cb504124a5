/* argv.c: the llama.cpp command lines of argv.h: the flags llama-verdict
 * passes (each with every spelling llama.cpp has had and the one each tool
 * is given), the order each kind of run passes them in, their values, and
 * what a build's --help leaves out. Not for running anything. */
#include "engine/argv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum flag {
    F_MODEL, F_PROMPT, F_GEN, F_DEPTH, F_REPS, F_OUTPUT, F_VERBOSE, F_NO_WARMUP, F_DEVICE, F_SPLIT_MODE,
    F_TENSOR_SPLIT, F_NGL, F_FA, F_UBATCH, F_CTK, F_CTV, F_NCMOE, F_FIT, F_FITT, F_FITC, F_THREADS, F_CTX,
    F_PARALLEL, F_FILE, F_CHUNKS, F_KLD_BASE, F_KLD, F_PROGRESS, F_BATCH, F_FIT_PRINT, F_GP, F_FMOE, F_NO_FMOE,
    F_RTR, F_END
};

/* Every spelling of a flag (names[0] unless the tool is given another). */
static const struct {
    const char *names[4];
    const char *spelt[ENGINE_TOOL_COUNT];
} flags[F_END] = {
    [F_MODEL] = {{"-m", "--model"}, {0}},
    [F_PROMPT] = {{"-p", "--n-prompt"}, {0}},
    [F_GEN] = {{"-n", "--n-gen"}, {0}},
    [F_DEPTH] = {{"-d", "--n-depth"}, {0}},
    [F_REPS] = {{"-r", "--repetitions"}, {0}},
    [F_OUTPUT] = {{"-o", "--output"}, {0}},
    [F_VERBOSE] = {{"-v", "--verbose"}, {0}},
    [F_NO_WARMUP] = {{"--no-warmup"}, {0}},
    [F_DEVICE] = {{"-dev", "--device"}, {[ENGINE_TOOL_SERVER] = "--device"}},
    [F_SPLIT_MODE] = {{"-sm", "--split-mode"}, {0}},
    [F_TENSOR_SPLIT] = {{"-ts", "--tensor-split"}, {0}},
    [F_NGL] = {{"-ngl", "--n-gpu-layers", "--gpu-layers"}, {0}},
    [F_FA] = {{"-fa", "--flash-attn"}, {0}},
    [F_UBATCH] = {{"-ub", "--ubatch-size"}, {0}},
    [F_CTK] = {{"-ctk", "--cache-type-k"}, {0}},
    [F_CTV] = {{"-ctv", "--cache-type-v"}, {0}},
    [F_NCMOE] = {{"-ncmoe", "--n-cpu-moe"}, {[ENGINE_TOOL_SERVER] = "--n-cpu-moe"}},
    [F_FIT] = {{"-fit", "--fit"}, {[ENGINE_TOOL_SERVER] = "--fit"}},
    [F_FITT] = {{"-fitt", "--fit-target"}, {0}},
    [F_FITC] = {{"-fitc", "--fit-ctx"}, {0}},
    [F_THREADS] = {{"-t", "--threads"}, {0}},
    [F_CTX] = {{"-c", "--ctx-size"}, {0}},
    [F_PARALLEL] = {{"-np", "--parallel"}, {0}},
    [F_FILE] = {{"-f", "--file"}, {0}},
    [F_CHUNKS] = {{"--chunks"}, {0}},
    [F_KLD_BASE] = {{"--kl-divergence-base", "--save-all-logits"}, {0}},
    [F_KLD] = {{"--kl-divergence"}, {0}},
    [F_PROGRESS] = {{"--progress"}, {0}},
    [F_BATCH] = {{"-b", "--batch-size"}, {0}},
    [F_FIT_PRINT] = {{"--fit-print", "-fitp"}, {0}},
    [F_GP] = {{"-gp"}, {0}}, /* ik_llama.cpp's llama-bench: "-gp D,N" is tgN at depth D */
    /* ik_llama.cpp's knobs: llama-bench takes "-fmoe 0|1" and "-rtr 0|1"; its
     * llama-server fused MoE by default, "-no-fmoe" off, and the switch "-rtr" */
    [F_FMOE] = {{"-fmoe", "--fused-moe"}, {0}},
    [F_NO_FMOE] = {{"-no-fmoe", "--no-fused-moe"}, {0}},
    [F_RTR] = {{"-rtr", "--run-time-repack"}, {0}},
};

/* One flag of a kind's order; need: the run cannot do without it. */
typedef struct step {
    enum flag f;
    int need;
} step;

#define NEED(f) {f, 1}
#define MAY(f) {f, 0}

static const step bench_order[] = {
    NEED(F_MODEL), NEED(F_PROMPT), NEED(F_GEN), NEED(F_DEPTH), NEED(F_REPS), NEED(F_OUTPUT), MAY(F_VERBOSE),
    MAY(F_DEVICE), MAY(F_SPLIT_MODE), MAY(F_TENSOR_SPLIT), MAY(F_NGL), MAY(F_FA), MAY(F_UBATCH), MAY(F_CTK),
    MAY(F_CTV), MAY(F_NCMOE), MAY(F_FITT), MAY(F_FITC), MAY(F_THREADS), MAY(F_FMOE), MAY(F_RTR),
    MAY(F_NO_WARMUP), MAY(F_PROGRESS), {F_END, 0}};
static const step fit_load_order[] = {
    NEED(F_MODEL), NEED(F_DEPTH), NEED(F_PROMPT), NEED(F_GEN), NEED(F_REPS), NEED(F_OUTPUT), MAY(F_NO_WARMUP),
    MAY(F_DEVICE), MAY(F_NGL), MAY(F_NCMOE), MAY(F_UBATCH), MAY(F_CTK), MAY(F_CTV), {F_END, 0}};
static const step perplexity_order[] = {
    NEED(F_MODEL), NEED(F_FILE), NEED(F_CTX), NEED(F_CHUNKS), NEED(F_KLD_BASE), NEED(F_KLD), MAY(F_NGL),
    MAY(F_DEVICE), {F_END, 0}};
static const step server_order[] = {
    NEED(F_MODEL), MAY(F_DEVICE), MAY(F_SPLIT_MODE), MAY(F_TENSOR_SPLIT), MAY(F_NGL), MAY(F_NCMOE), MAY(F_FIT),
    MAY(F_FITT), MAY(F_FITC), MAY(F_UBATCH), MAY(F_FA), MAY(F_CTK), MAY(F_CTV), MAY(F_THREADS), MAY(F_CTX),
    MAY(F_PARALLEL), MAY(F_FMOE), MAY(F_NO_FMOE), MAY(F_RTR), {F_END, 0}};
static const step fit_params_order[] = {NEED(F_MODEL), MAY(F_DEVICE), NEED(F_CTX), NEED(F_FITT), {F_END, 0}};
static const step fit_print_order[] = {
    NEED(F_MODEL), MAY(F_DEVICE), NEED(F_CTX), MAY(F_UBATCH), MAY(F_BATCH), MAY(F_FA), MAY(F_CTK), MAY(F_CTV),
    MAY(F_NGL), NEED(F_FIT_PRINT), {F_END, 0}};

static const struct {
    engine_tool tool;
    const step *order;
} kinds[] = {
    [ENGINE_RUN_BENCH] = {ENGINE_TOOL_BENCH, bench_order},
    [ENGINE_RUN_FIT_LOAD] = {ENGINE_TOOL_BENCH, fit_load_order},
    [ENGINE_RUN_PERPLEXITY] = {ENGINE_TOOL_PERPLEXITY, perplexity_order},
    [ENGINE_RUN_SERVER] = {ENGINE_TOOL_SERVER, server_order},
    [ENGINE_RUN_FIT_PARAMS] = {ENGINE_TOOL_FIT_PARAMS, fit_params_order},
    [ENGINE_RUN_FIT_PRINT] = {ENGINE_TOOL_FIT_PARAMS, fit_print_order},
};

engine_tool engine_run_tool(engine_run_kind kind)
{
    return kinds[kind].tool;
}

int engine_argv_vocabulary(const char *name)
{
    for (int f = 0; f < F_END; f++)
        for (size_t i = 0; i < LVD_ARRAY_LEN(flags[f].names) && flags[f].names[i]; i++)
            if (!strcmp(flags[f].names[i], name))
                return 1;
    return 0;
}

/* --- values --------------------------------------------------------------- */

/* A value as llama-server takes a llama-bench list: "/" becomes ",". */
static char *server_list(const char *bench_list)
{
    char *v = lvd_xstrdup(bench_list);
    for (char *c = v; *c; c++)
        if (*c == '/')
            *c = ',';
    return v;
}

static char *int_value(int v)
{
    return lvd_xasprintf("%d", v);
}

/* The group's list of context flag i, else the parameter (NULL: not passed). */
static char *ctx_value(const engine_run *r, int i, char *from_params)
{
    if (r->lists[i]) {
        free(from_params);
        return lvd_xstrdup(r->lists[i]);
    }
    return from_params;
}

/* The flags only a GPU engine's launch line has. */
static int gpu_only(enum flag f)
{
    return f == F_DEVICE || f == F_SPLIT_MODE || f == F_TENSOR_SPLIT || f == F_NGL || f == F_NCMOE ||
           f == F_FIT || f == F_FITT || f == F_FITC;
}

/* The parameter value of flag f (malloc'd), "" for a switch, NULL when r
 * does not pass it. */
static char *param_value(const engine_run *r, enum flag f)
{
    const lvd_params *p = &r->params;
    int server = r->kind == ENGINE_RUN_SERVER;
    int onoff = server || r->kind == ENGINE_RUN_FIT_PRINT; /* common's -fa on|off */
    switch (f) {
    case F_DEVICE: return !*p->device ? NULL : server ? server_list(p->device) : lvd_xstrdup(p->device);
    case F_SPLIT_MODE: return *p->split_mode ? lvd_xstrdup(p->split_mode) : NULL;
    case F_TENSOR_SPLIT:
        return !*p->tensor_split ? NULL : server ? server_list(p->tensor_split) : lvd_xstrdup(p->tensor_split);
    case F_NGL: return p->ngl >= 0 ? int_value(p->ngl) : NULL;
    case F_FA:
        return ctx_value(r, ENGINE_LIST_FA,
                         p->fa < 0 ? NULL : onoff ? lvd_xstrdup(p->fa ? "on" : "off") : int_value(p->fa ? 1 : 0));
    case F_UBATCH: return ctx_value(r, ENGINE_LIST_UB, p->ubatch > 0 ? int_value(p->ubatch) : NULL);
    case F_CTK: return ctx_value(r, ENGINE_LIST_CTK, *p->type_k ? lvd_xstrdup(p->type_k) : NULL);
    case F_CTV: return ctx_value(r, ENGINE_LIST_CTV, *p->type_v ? lvd_xstrdup(p->type_v) : NULL);
    case F_NCMOE: return p->n_cpu_moe > 0 ? int_value(p->n_cpu_moe) : NULL;
    case F_FIT: return p->fit_target > 0 ? lvd_xstrdup("on") : NULL;
    case F_FITT: return p->fit_target > 0 ? int_value(p->fit_target) : NULL;
    case F_FITC: return p->fit_target > 0 && p->fit_ctx > 0 ? int_value(p->fit_ctx) : NULL;
    case F_THREADS: return ctx_value(r, ENGINE_LIST_T, p->threads > 0 ? int_value(p->threads) : NULL);
    case F_PARALLEL: return p->parallel > 0 ? int_value(p->parallel) : NULL; /* a serving verdict's slots */
    case F_FMOE: return p->fused_moe < 0 ? NULL : !server ? int_value(p->fused_moe) : p->fused_moe ? lvd_xstrdup("") : NULL;
    case F_NO_FMOE: return server && p->fused_moe == 0 ? lvd_xstrdup("") : NULL;
    case F_RTR: return p->repack < 0 ? NULL : !server ? int_value(p->repack) : p->repack ? lvd_xstrdup("") : NULL;
    default: return NULL;
    }
}

/* llama-bench's output format for r: jsonl, or json where the build's --help
 * shows -o without jsonl (ik_llama.cpp: "<csv|json|md|sql>"); both are read
 * alike (bench/benchout.h). */
static const char *output_format(const engine_run *r)
{
    const engine_opt *o = r->help ? engine_help_opt(r->help, ENGINE_TOOL_BENCH, "-o") : NULL;
    return o && strstr(o->arg, "json") && !strstr(o->arg, "jsonl") ? "json" : "jsonl";
}

/* The value of flag f in run r (malloc'd), "" for a switch, NULL when r does
 * not pass it. */
static char *value_of(const engine_run *r, enum flag f)
{
    if (r->kind == ENGINE_RUN_SERVER && !r->gpu && gpu_only(f))
        return NULL;
    switch (f) {
    case F_MODEL: return lvd_xstrdup(r->model ? r->model : "");
    case F_PROMPT: return lvd_xstrdup(r->n_prompt ? r->n_prompt : "0");
    case F_GEN: return lvd_xstrdup(r->n_gen ? r->n_gen : "0");
    case F_DEPTH: return r->n_depth ? lvd_xstrdup(r->n_depth) : NULL;
    case F_REPS: return int_value(r->reps);
    case F_OUTPUT: return lvd_xstrdup(output_format(r));
    case F_VERBOSE: return lvd_xstrdup("");
    case F_NO_WARMUP: return r->no_warmup ? lvd_xstrdup("") : NULL;
    case F_PROGRESS: return r->progress ? lvd_xstrdup("") : NULL;
    case F_CTX: return r->ctx > 0 ? lvd_xasprintf("%u", r->ctx) : NULL;
    case F_FILE: return r->text ? lvd_xstrdup(r->text) : NULL;
    case F_CHUNKS: return r->chunks > 0 ? int_value(r->chunks) : NULL;
    case F_KLD_BASE: return r->kld_base ? lvd_xstrdup(r->kld_base) : NULL;
    case F_KLD: return r->kld ? lvd_xstrdup("") : NULL;
    case F_BATCH: return r->params.ubatch > 0 ? int_value(r->params.ubatch) : NULL;
    case F_FIT_PRINT: return lvd_xstrdup("on");
    default: return param_value(r, f);
    }
}

/* --- spelling ------------------------------------------------------------- */

static const char *spelt(enum flag f, engine_tool tool)
{
    return flags[f].spelt[tool] ? flags[f].spelt[tool] : flags[f].names[0];
}

/* The build's option for flag f of tool, or NULL when it lists none; *name
 * the spelling to pass: ours when listed, else the first other it lists. */
static const engine_opt *listed(const engine_help *h, engine_tool tool, enum flag f, const char **name)
{
    *name = spelt(f, tool);
    const engine_opt *o = engine_help_opt(h, tool, *name);
    for (size_t i = 0; !o && i < LVD_ARRAY_LEN(flags[f].names) && flags[f].names[i]; i++)
        if ((o = engine_help_opt(h, tool, flags[f].names[i])) != NULL)
            *name = flags[f].names[i];
    /* ik_llama.cpp's llama-perplexity takes --kl-divergence-base but lists
     * only --kl-divergence, whose line names it */
    if (!o && f == F_KLD_BASE)
        o = engine_help_opt(h, tool, flags[F_KLD].names[0]);
    return o;
}

/* Adds "FLAG VALUE" to the list of what was left out. */
static void left_out(lvd_sb *sb, const char *name, const char *value)
{
    lvd_sb_addf(sb, "%s%s%s%s", sb->len ? ", " : "", name, *value ? " " : "", value);
}

/* Pushes flag f with value (taken) as the build takes it. */
static void push(engine_argv *out, const char *name, const engine_opt *o, char *value)
{
    int onoff = !strcmp(value, "on") || !strcmp(value, "off");
    if (o && !*o->arg && onoff) { /* a switch in this build: on is the bare flag, off its default */
        if (!strcmp(value, "on"))
            lvd_strv_pushf(&out->argv, &out->argc, "%s", name);
        free(value);
        return;
    }
    lvd_strv_pushf(&out->argv, &out->argc, "%s", name);
    if (*value)
        lvd_strv_push(&out->argv, &out->argc, value);
    else
        free(value);
}

/* 1 when r's tests at a depth go as -gp: a llama-bench run with depths on a
 * build whose --help lists no -d but -gp (ik_llama.cpp). */
static int depth_by_gp(const engine_run *r, int known)
{
    const char *name;
    return known && r->kind == ENGINE_RUN_BENCH && r->n_depth && !listed(r->help, ENGINE_TOOL_BENCH, F_DEPTH, &name) &&
           listed(r->help, ENGINE_TOOL_BENCH, F_GP, &name);
}

/* 1 when the comma list has the value v. */
static int list_has(const char *list, long v)
{
    for (const char *p = list; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] ? 1 : 0))
        if (strtol(p, NULL, 10) == v)
            return 1;
    return 0;
}

/* r's tests at depth as -gp D,N (one per depth D > 0 and tg N > 0; the
 * caller passes -p/-n only when its depths hold 0); a depth whose pp tests
 * -gp cannot run is left out (gone: "-d 2048"). */
static void push_depth_gp(const engine_run *r, engine_argv *out, lvd_sb *gone)
{
    char **depths = lvd_split(r->n_depth, ',', NULL), **gens = lvd_split(r->n_gen ? r->n_gen : "0", ',', NULL);
    for (size_t d = 0; depths[d]; d++) {
        long depth = strtol(depths[d], NULL, 10);
        for (size_t g = 0; depth > 0 && gens[g]; g++)
            if (strtol(gens[g], NULL, 10) > 0) {
                lvd_strv_pushf(&out->argv, &out->argc, "-gp");
                lvd_strv_pushf(&out->argv, &out->argc, "%ld,%ld", depth, strtol(gens[g], NULL, 10));
            }
        if (depth > 0 && r->n_prompt && strcmp(r->n_prompt, "0")) /* its pp tests at depth: not run */
            left_out(gone, "-d", depths[d]);
    }
    lvd_strv_free(depths);
    lvd_strv_free(gens);
}

int engine_argv_build(const engine_run *r, engine_argv *out, lvd_err *err)
{
    memset(out, 0, sizeof *out);
    engine_tool tool = kinds[r->kind].tool;
    int known = r->help && r->help->known[tool];
    int by_gp = depth_by_gp(r, known), at_zero = !by_gp || list_has(r->n_depth, 0);
    lvd_sb gone = {0};
    lvd_strv_pushf(&out->argv, &out->argc, "%s", r->binary);
    for (const step *s = kinds[r->kind].order; s->f != F_END; s++) {
        if (by_gp && s->f == F_DEPTH) {
            push_depth_gp(r, out, &gone);
            continue;
        }
        char *value = by_gp && !at_zero && (s->f == F_PROMPT || s->f == F_GEN) ? lvd_xstrdup("0") : value_of(r, s->f);
        if (!value)
            continue;
        const char *name = spelt(s->f, tool);
        const engine_opt *o = known ? listed(r->help, tool, s->f, &name) : NULL;
        if (known && !o && s->need) {
            lvd_errf(err, "%s: its --help lists no %s, which this run needs", r->binary, spelt(s->f, tool));
            free(value);
            lvd_sb_free(&gone);
            engine_argv_free(out);
            return -1;
        }
        if (known && !o && s->f == F_FMOE && listed(r->help, tool, F_NO_FMOE, &name)) {
            free(value); /* fused MoE is this build's default: it lists only the switch that turns it off */
            continue;
        }
        if (known && !o) {
            left_out(&gone, spelt(s->f, tool), value);
            free(value);
            continue;
        }
        push(out, name, o, value);
    }
    if (gone.len)
        out->note = lvd_xasprintf("left out %s: not in %s's --help", gone.buf, engine_tool_name(tool));
    lvd_sb_free(&gone);
    return 0;
}

int engine_argv_listed(const engine_help *h, engine_tool tool, const char *name)
{
    for (int f = 0; f < F_END; f++)
        for (size_t i = 0; i < LVD_ARRAY_LEN(flags[f].names) && flags[f].names[i]; i++) {
            const char *as;
            if (!strcmp(flags[f].names[i], name))
                return h && h->known[tool] && listed(h, tool, (enum flag)f, &as) != NULL;
        }
    return 0;
}

void engine_argv_free(engine_argv *a)
{
    if (!a)
        return;
    lvd_strv_free(a->argv);
    free(a->note);
    memset(a, 0, sizeof *a);
}
