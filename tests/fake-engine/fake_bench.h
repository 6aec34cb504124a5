/* fake_bench.h: the fake llama-bench's own types, shared by its argument
 * parser (fake_bench_args.c) and its runner and printers (fake_bench.c):
 * the dimensions, the output formats, the parsed options and the test
 * instances. Not for the other personas (fake.h). */
#ifndef LVD_FAKE_ENGINE_LLAMA_BENCH_H
#define LVD_FAKE_ENGINE_LLAMA_BENCH_H

#include "fake.h"

enum bdim {
    D_MODEL, D_FITT, D_FITC, D_NGL, D_NCMOE, D_SM, D_LM, D_MG, D_DEV, D_TS, D_OT, D_NOH, D_EMBD,
    D_NOPO, D_NB, D_NUB, D_TK, D_TV, D_NKVO, D_FA, D_NT, D_CM, D_CS, D_ND, D_POLL, D_COUNT
};

enum { FMT_NONE, FMT_CSV, FMT_JSON, FMT_JSONL, FMT_MD, FMT_SQL };

typedef struct bench_opts {
    strv dim[D_COUNT];
    strv n_prompt, n_gen, pg;
    int reps, fmt, fmt_err, progress, no_warmup, delay, hf, verbose;
} bench_opts;

/* One test instance: an index into every dimension plus the test shape. */
typedef struct binst {
    size_t ix[D_COUNT];
    int n_prompt, n_gen;
} binst;

typedef struct binst_list {
    binst *v;
    size_t n;
} binst_list;

/* fake_bench_args.c */
const char *bench_default(int d);
int bench_parse(int argc, char **argv, bench_opts *o);
void bench_opts_free(bench_opts *o);
void bench_instances(const bench_opts *o, binst_list *out);

/* fake_ctx_limit.c: exits 1 as llama.cpp does when the context of n_ctx
 * cells does not fit under target T's ctx_limit (scenario); else returns. */
void ctx_limit_check(const char *T, const char *ctk, const char *ctv, long n_ctx, int verbose, const char *model);
/* fake_bench_alloc.c: llama-bench -v's buffer lines for one test instance
 * (load: the model buffers too) */
void print_alloc(const char *target, const bench_opts *o, const binst *in, const model_meta *m, int load);

#endif
