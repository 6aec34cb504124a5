/* opt_vocab.h: the option entries several tools share (common/opt.h), each
 * written once: llama.cpp's spellings (-m, -ngl, -fa, -ub, -ctk, -ctv, -ncmoe,
 * -dev, -sm, -ts, -t, -c, -d, -r, -p, -n: a tool that takes one takes every
 * spelling of it, as llama.cpp's tools do) and lvd's own (--store, --json,
 * --host, --wait, --engines, --builds-dir, --timeout, --budget), with the ranges their
 * numbers share with every other reader of them (an operator profile takes
 * the same context and layers as a command line). An entry is written
 *   {LVD_OPT_NGL, LVD_AT(ngl), .help = "..."}
 * in a tool's table: LVD_AT names a field of the tool's struct `options`. Not
 * for what a tool makes of a value. */
#ifndef LVD_OPT_VOCAB_H
#define LVD_OPT_VOCAB_H

#include "common/opt.h"

#include <stddef.h>
#include <stdint.h>

/* The field of the tool's options struct (named `options`) an entry fills. */
#define LVD_AT(field) .off = offsetof(options, field)

/* --- ranges ------------------------------------------------------------------ */

#define LVD_CTX_MAX 16777216 /* 2^24 tokens: the largest context served, measured or searched */
#define LVD_LAYERS_MAX 100000 /* -ngl, -ncmoe */
#define LVD_UBATCH_MAX 65536
#define LVD_THREADS_MAX 4096
#define LVD_MIB_MAX (INT64_C(1) << 30) /* a size in MiB: a pebibyte */
#define LVD_DAY 86400
#define LVD_WEEK (7 * LVD_DAY)

/* --- llama.cpp's spellings ----------------------------------------------------- */

#define LVD_OPT_MODEL .spell = "-m, --model", .arg = "M.gguf", .kind = LVD_OPT_STR
#define LVD_OPT_MODELS .spell = "-m, --model", .arg = "M.gguf", .kind = LVD_OPT_STRS /* repeatable */
#define LVD_OPT_NGL                                                                                      \
    .spell = "-ngl, --n-gpu-layers, --ngl", .arg = "N,...", .kind = LVD_OPT_INTS, .lo = 0, .hi = LVD_LAYERS_MAX
#define LVD_OPT_FA .spell = "-fa, --flash-attn, --fa", .arg = "on|off,...", .kind = LVD_OPT_INTS, .flags = LVD_OPT_ONOFF
#define LVD_OPT_UB                                                                                       \
    .spell = "-ub, --ubatch-size, --ub", .arg = "N,...", .kind = LVD_OPT_INTS, .lo = 1, .hi = LVD_UBATCH_MAX
#define LVD_OPT_CTK .spell = "-ctk, --cache-type-k, --ctk", .arg = "T,...", .kind = LVD_OPT_LIST
#define LVD_OPT_CTV .spell = "-ctv, --cache-type-v, --ctv", .arg = "T,...", .kind = LVD_OPT_LIST
#define LVD_OPT_NCMOE                                                                                    \
    .spell = "-ncmoe, --n-cpu-moe, --ncmoe", .arg = "N,...", .kind = LVD_OPT_INTS, .lo = 0, .hi = LVD_LAYERS_MAX
/* ik_llama.cpp's knobs, one value per process: fused MoE and run-time repacking */
#define LVD_OPT_FMOE .spell = "-fmoe, --fused-moe", .arg = "0|1,...", .kind = LVD_OPT_INTS, .lo = 0, .hi = 1
#define LVD_OPT_RTR .spell = "-rtr, --run-time-repack", .arg = "0|1,...", .kind = LVD_OPT_INTS, .lo = 0, .hi = 1
#define LVD_OPT_DEV .spell = "-dev, --device", .arg = "SEL", .kind = LVD_OPT_STR
#define LVD_OPT_SM .spell = "-sm, --split-mode, --sm", .arg = "layer,row,tensor", .kind = LVD_OPT_LIST
/* "3,1" (llama-server's) or "3/1" (llama-bench's) */
#define LVD_OPT_TS .spell = "-ts, --tensor-split, --ts", .arg = "N/N", .kind = LVD_OPT_STR
#define LVD_OPT_THREADS .spell = "-t, --threads", .arg = "N", .kind = LVD_OPT_INT, .lo = 1, .hi = LVD_THREADS_MAX
#define LVD_OPT_CTX                                                                                      \
    .spell = "-c, --ctx-size, --ctx", .arg = "N", .kind = LVD_OPT_INT, .lo = 0, .hi = LVD_CTX_MAX, .unit = "tokens"
#define LVD_OPT_DEPTH                                                                                    \
    .spell = "-d, --n-depth, --depth", .arg = "N,...", .kind = LVD_OPT_INTS, .lo = 0, .hi = LVD_CTX_MAX,     \
    .unit = "tokens"
#define LVD_OPT_REPS .spell = "-r, --repetitions, --reps", .arg = "N", .kind = LVD_OPT_INT, .lo = 1, .hi = 1000
#define LVD_OPT_NPROMPT .spell = "-p, --n-prompt", .arg = "N,...", .kind = LVD_OPT_STR
#define LVD_OPT_NGEN .spell = "-n, --n-gen", .arg = "N,...", .kind = LVD_OPT_STR

/* --- lvd's own ------------------------------------------------------------------- */

#define LVD_OPT_STORE_HELP                                                                               \
    "the store: an SQLite file or a PostgreSQL URI (postgresql://...); default "                             \
    "$XDG_DATA_HOME/llama-verdict/store.db"
#define LVD_OPT_STORE_AS(text)                                                                           \
    .spell = "--store", .arg = "PATH", .kind = LVD_OPT_STR, .env = "LVD_STORE", .help = text, LVD_AT(t.store)
#define LVD_OPT_STORE LVD_OPT_STORE_AS(LVD_OPT_STORE_HELP)
#define LVD_OPT_JSON .spell = "--json", .kind = LVD_OPT_FLAG, LVD_AT(t.json)
#define LVD_OPT_HOST_AS(text)                                                                            \
    .spell = "--host", .arg = "NAME", .kind = LVD_OPT_CALL, .call = lvd_opt_host, .env = "LVD_HOST",       \
    .help = text, LVD_AT(t.host)
#define LVD_OPT_HOST LVD_OPT_HOST_AS("whose measurements (default: this machine)")
#define LVD_OPT_WAIT                                                                                     \
    .spell = "--wait", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 0, .hi = LVD_WEEK,                    \
    .help = "wait up to DUR for the device lock another bench, check, probe, fit, bisect or nightly holds " \
            "(default: refuse at once, naming the holder: exit 8)"
#define LVD_OPT_ENGINES                                                                                  \
    .spell = "--engines", .arg = "LIST", .kind = LVD_OPT_STR,                                              \
    .help = "registered engines by name or id, comma-separated (default all)"
#define LVD_OPT_BUILDS_DIR                                                                               \
    .spell = "--builds-dir", .arg = "DIR", .kind = LVD_OPT_STR, .env = "LVD_BUILDS_DIR",                   \
    .help = "where bench dirs live (default $XDG_DATA_HOME/llama-verdict/builds)"
/* a child's timeout: one second to a day */
#define LVD_OPT_TIMEOUT .spell = "--timeout", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 1, .hi = LVD_DAY
/* the time a session may spend starting runs (bench, bisect, serve): 0 is none,
 * as each runner reads it (budget_ms 0: no budget), up to a week */
#define LVD_OPT_BUDGET .spell = "--budget", .arg = "DUR", .kind = LVD_OPT_DURATION, .lo = 0, .hi = LVD_WEEK

/* --host NAME (lvd_tool_opts' host): not empty; the tool then acts for that
 * host (lvd_hostname_set: its engines, its runs). */
int lvd_opt_host(const lvd_opt *o, void *field, const char *arg, lvd_err *err);

#endif
