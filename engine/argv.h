/* argv.h: the one builder of llama.cpp command lines from engine parameters
 * (lvd_params), for every tool of llama-verdict that starts an engine:
 *
 *   lvd bench    llama-bench -m M -p P,.. -n N,.. [-d D,..] -r R -o jsonl -v [-dev SEL] [-sm S]
 *                  [-ts A/B] [-ngl N] [-fa 0|1] [-ub U] [-ctk T] [-ctv T] [-ncmoe N]
 *                  [-fitt MiB [-fitc N]] [-t T] [-fmoe 0|1] [-rtr 0|1] [--no-warmup] [--progress]
 *                (a group of arms sharing the process: -fa, -ub, -ctk, -ctv, -t as comma lists;
 *                ik_llama.cpp's -fmoe and -rtr take one value per process)
 *   lvd fit      llama-bench -m M -d N -p 1 -n 1 -r 1 -o jsonl --no-warmup [-dev SEL] [-ngl N]
 *                  [-ncmoe N] [-ub U] -ctk T -ctv T
 *   lvd check    llama-perplexity -m M -f TEXT -c C --chunks K --kl-divergence-base FILE
 *                  [--kl-divergence] [-ngl N -dev SEL]
 *   lvd select   llama-server -m M [--device A,B] [-sm S] [-ts A,B] [-ngl N] [--n-cpu-moe N]
 *                  [--fit on -fitt MiB [-fitc N]] [-ub U] [-fa on|off] [-ctk T] [-ctv T] [-t T] [-c C]
 *                  [-np N] (a serving verdict's slots) [-fmoe | -no-fmoe] [-rtr]
 *                (the GPU flags only on an engine that lists devices; ik_llama.cpp's fused
 *                MoE off is -no-fmoe, on the bare -fmoe where the build lists it and
 *                nothing where it lists only -no-fmoe, its default; -rtr for repacking)
 *   llama.cpp's fit plan  llama-fit-params -m M [-dev SEL] -c C -fitt MiB
 *   llama.cpp's memory    llama-fit-params -m M [-dev SEL] -c C [-ub U -b U] [-fa on|off] [-ctk T]
 *                  [-ctv T] [-ngl N] --fit-print on
 *
 * Each flag is spelt the way its tool takes it: llama-bench's comma lists,
 * "/" between devices and split fractions and -fa 0|1; llama-server's ","
 * lists, -fa on|off and --n-cpu-moe; a build whose --help shows -fa (or
 * --fit) as a switch without a value gets the bare flag for on and nothing
 * for off (its default).
 *
 * Given what the build's --help lists (engine/help.h, kept with its probe),
 * a flag it does not list is never passed: an alias it lists is passed in
 * its place; else a parameter of the arm (device, split, -ngl, -fa, -ub,
 * cache types, -ncmoe, fit, -t) and the switches -v and --no-warmup are left
 * out, and the note says so ("left out -ncmoe 4: not in llama-bench's
 * --help"), as --progress is (energy is then not measured by repetition); a word the run cannot do without (-m, the tests, -r, -o, fit's
 * -d, perplexity's text and KL files, llama-fit-params' -c and -fitt) is an
 * error instead. A build whose llama-bench lists -o without jsonl
 * (ik_llama.cpp) is asked for -o json; one with no -d but -gp
 * (ik_llama.cpp) runs each tg test at depth D as -gp D,N, and the pp tests
 * at depth are left out ("left out -d 2048"). An unknown help (NULL, or a tool it does not know) passes
 * every flag. Not for running the tools, nor for quoting a line for a shell
 * (select/launch.h). */
#ifndef LVD_ENGINE_ARGV_H
#define LVD_ENGINE_ARGV_H

#include "common/types.h"
#include "common/util.h"
#include "engine/help.h"

#include <stddef.h>
#include <stdint.h>

typedef enum engine_run_kind {
    ENGINE_RUN_BENCH,       /* llama-bench: one invocation of lvd bench */
    ENGINE_RUN_FIT_LOAD,    /* llama-bench: one load of lvd fit */
    ENGINE_RUN_PERPLEXITY,  /* llama-perplexity: one run of lvd check */
    ENGINE_RUN_SERVER,      /* llama-server: the launch line of lvd select */
    ENGINE_RUN_FIT_PARAMS,  /* llama-fit-params: llama.cpp's own fit plan */
    ENGINE_RUN_FIT_PRINT,   /* llama-fit-params --fit-print: llama.cpp's own memory figures */
} engine_run_kind;

/* llama-bench's context flags: what a group of arms may pass as comma lists. */
enum { ENGINE_LIST_FA, ENGINE_LIST_UB, ENGINE_LIST_CTK, ENGINE_LIST_CTV, ENGINE_LIST_T, ENGINE_LIST_COUNT };

/* One run to build. Parameters follow lvd_params' "not passed" values. */
typedef struct engine_run {
    engine_run_kind kind;
    const char *binary;              /* argv[0] as given */
    const char *model;               /* -m */
    lvd_params params;               /* the arm's (env is not argv: the caller's) */
    const engine_help *help;         /* what the build lists; NULL: unknown */
    /* llama-bench */
    const char *n_prompt, *n_gen;    /* -p, -n: comma lists */
    const char *n_depth;             /* -d; NULL: not passed */
    int reps;                        /* -r */
    int no_warmup;                   /* --no-warmup */
    int progress;                    /* --progress (energy windows, bench/energy.h) */
    const char *lists[ENGINE_LIST_COUNT]; /* a group's comma lists; NULL: the params' value */
    /* llama-perplexity */
    const char *text;                /* -f */
    int chunks;                      /* --chunks */
    const char *kld_base;            /* --kl-divergence-base */
    int kld;                         /* --kl-divergence */
    /* llama-perplexity, llama-server, llama-fit-params */
    uint32_t ctx;                    /* -c; 0: not passed */
    /* llama-fit-params --fit-print: -b is the ubatch (its compute then reserves one ubatch of
       outputs, as llama-perplexity's) */
    int gpu;                         /* llama-server: the engine lists devices (0: no GPU flag) */
} engine_run;

typedef struct engine_argv {
    char **argv;                     /* NULL-terminated */
    size_t argc;
    char *note;                      /* "left out -ncmoe 4: not in llama-bench's --help"; NULL: none */
} engine_argv;

/* The tool run r starts. */
engine_tool engine_run_tool(engine_run_kind kind);

/* Builds r's argv and note into out (free with engine_argv_free). 0, or -1
 * with err (out empty) when the build does not list a word the run needs. */
int engine_argv_build(const engine_run *r, engine_argv *out, lvd_err *err);
void engine_argv_free(engine_argv *a);

/* 1 when name ("-fa", "--flash-attn") is a flag this builder may pass. */
int engine_argv_vocabulary(const char *name);
/* 1 when h says tool lists the flag name is one spelling of ("-fmoe" finds
 * "--fused-moe"); 0 when it does not, or h does not know tool. */
int engine_argv_listed(const engine_help *h, engine_tool tool, const char *name);

#endif
