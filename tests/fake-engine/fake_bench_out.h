/* fake_bench_out.h: the fake llama-bench's printed fields and its printers
 * (json, jsonl, csv, md, sql), shared by the runner (fake_bench.c) and the
 * printers (fake_bench_out.c). Not for the simulation. */
#ifndef LVD_FAKE_ENGINE_BENCH_OUT_H
#define LVD_FAKE_ENGINE_BENCH_OUT_H

#include "fake_bench.h"

#include <stdint.h>
#include <stdio.h>

enum bfield {
    F_BUILD_COMMIT, F_BUILD_NUMBER, F_CPU_INFO, F_GPU_INFO, F_BACKENDS, F_MODEL_FILENAME, F_MODEL_TYPE,
    F_MODEL_SIZE, F_MODEL_N_PARAMS, F_N_BATCH, F_N_UBATCH, F_N_THREADS, F_CPU_MASK, F_CPU_STRICT, F_POLL,
    F_TYPE_K, F_TYPE_V, F_N_GPU_LAYERS, F_N_CPU_MOE, F_SPLIT_MODE, F_MAIN_GPU, F_NO_KV_OFFLOAD, F_FLASH_ATTN,
    F_DEVICES, F_TENSOR_SPLIT, F_TENSOR_BUFT_OVERRIDES, F_LOAD_MODE, F_EMBEDDINGS, F_NO_OP_OFFLOAD,
    F_NO_HOST, F_FIT_TARGET, F_FIT_MIN_CTX, F_N_PROMPT, F_N_GEN, F_N_DEPTH, F_TEST_TIME, F_AVG_NS,
    F_STDDEV_NS, F_AVG_TS, F_STDDEV_TS, F_COUNT
};

enum ftype { T_STRING, T_BOOL, T_INT, T_FLOAT };

typedef struct bfield_info {
    const char *name;
    enum ftype type;
    int dim; /* the bench dimension it echoes, or -1 */
} bfield_info;

/* Every field llama-bench prints, in its order. */
extern const bfield_info FIELDS[F_COUNT];


/* One printed test: every field as llama-bench's get_values() renders it. */
typedef struct bres {
    char *val[F_COUNT];
    uint64_t *ns;
    size_t n;
    int n_prompt, n_gen, n_depth;
    uint64_t model_size, model_n_params;
    double avg_ts, stdev_ts;
    int fmoe, rtr;   /* ik_llama.cpp's knobs of the process */
    int gp;          /* an ik -gp test: t/s counts the generated tokens only */
} bres;

typedef struct printer {
    int fmt;
    int first;
    const char *md[F_COUNT + 8];
    int nmd;
} printer;

/* The t/s of sample i. */
double ts_of(const bres *r, size_t i);
/* The format's opening (csv header, json '[', sql table, md header). */
void print_header(printer *p, const bench_opts *o, lvd_sb *sb);
/* One test in the format, mirroring llama-bench's printer of it. */
void print_test(printer *p, const bres *r, lvd_sb *sb);
/* The format's closing (json ']'). */
void print_footer(printer *p, lvd_sb *sb);
/* Writes sb to f, flushes, empties sb. */
void emit(FILE *f, lvd_sb *sb);

#endif
