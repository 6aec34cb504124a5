/* fake_bench.h: the fake llama-bench's own types, shared by its argument
 * parser (fake_bench_args.c) and its runner and printers (fake_bench.c):
 * the dimensions, the output formats, the parsed options and the test
 * instances. Not for the other personas (fake.h). */
#ifndef LVD_FAKE_ENGINE_LLAMA_BENCH_H
#define LVD_FAKE_ENGINE_LLAMA_BENCH_H

#include "fake.h"

#include "common/gguf.h"

enum bdim {
    D_MODEL, D_FITT, D_FITC, D_NGL, D_NCMOE, D_SM, D_LM, D_MG, D_DEV, D_TS, D_OT, D_NOH, D_EMBD,
    D_NOPO, D_NB, D_NUB, D_TK, D_TV, D_NKVO, D_FA, D_NT, D_CM, D_CS, D_ND, D_POLL, D_COUNT
};

enum { FMT_NONE, FMT_CSV, FMT_JSON, FMT_JSONL, FMT_MD, FMT_SQL };

typedef struct bench_opts {
    strv dim[D_COUNT];
    strv n_prompt, n_gen, pg, gp; /* gp: ik_llama.cpp's -gp D,N */
    int reps, fmt, fmt_err, progress, no_warmup, delay, hf, verbose;
    int fmoe, rtr; /* ik_llama.cpp's -fmoe, -rtr: one value per process */
} bench_opts;

/* One test instance: an index into every dimension plus the test shape. */
typedef struct binst {
    size_t ix[D_COUNT];
    int n_prompt, n_gen;
    int gp;   /* ik's -gp test: n_gen tokens timed after a prompt of n_prompt ("tgN@ppD") */
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
/* Where a load puts the model (fake_memory.c, fake_fit.c). */
typedef struct fake_where {
    uint32_t ctx;          /* KV cells */
    int ubatch;
    const char *type_k, *type_v;
    int ngl;               /* -1: every block and the output head */
    int host_experts;      /* blocks whose experts stay on the host */
    int overflow;          /* they are the last blocks (llama.cpp's fit) */
    int fa;                /* -fa on (auto and off price the larger buffer) */
    double device_weights; /* bytes of weights on the device (set by fake_need_mib) */
} fake_where;

/* fake_memory.c: the device MiB a load needs (-1: cannot price); 1 when
 * the instance's load needs more than the device target T really has
 * (dev.NAME.real_mib); the speed factor of what the load leaves on the host. */
double fake_need_mib(const gguf_shape *s, fake_where *w);
/* The load of instance in (model shape s) into *w: -ngl, -ncmoe, -fa, the
 * cache types, the test's context (prompt, generation and depth padded to
 * 256 cells) and its ubatch as llama.cpp cuts it (to -b and the context). */
void fake_load_where(const bench_opts *o, const binst *in, const gguf_shape *s, fake_where *w);
/* fake_compute.c: the device's compute buffer in MiB of a load at w (its
 * ubatch as llama.cpp cut it) with -fa fa, and the host's into *host_mib;
 * gpu 0: a CPU run, the whole buffer the host's (returns 0). */
double fake_compute_mib(const gguf_shape *s, const fake_where *w, int fa, int gpu, double *host_mib);
int fake_memory_short(const bench_opts *o, const binst *in, const char *T, const char *model);
double fake_offload_mult(const bench_opts *o, const binst *in, const char *T, const char *model, const char *K);

/* fake_fit.c: the memory device NAME really has (real_mib, else its free
 * MiB); llama.cpp's fit for target_mib into *w (ctx, ubatch, types set);
 * the llama-fit-params persona. */
double fake_device_mib(const char *name);
/* 0 when the scenario says fit = 0: a build before llama.cpp's fit (no -fitt). */
int fake_has_fit(void);
int fake_fit_plan(const gguf_shape *s, double target_mib, fake_where *w);
int fit_main(int argc, char **argv);

#endif
