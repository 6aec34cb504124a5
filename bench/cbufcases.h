/* cbufcases.h: the compute-buffer estimate (placement/cbuf.h) held against
 * what real llama.cpp builds allocated. A case is one load of one model at
 * one context, ubatch, flash attention and -ngl, with the buffer lines its
 * stderr printed (engine/alloclog.h reads them). Cases are kept as text, one
 * block per case:
 *   $ [GGML_VK_VISIBLE_DEVICES=0] [GGML_VK_DISABLE_GRAPH_OPTIMIZE=1] llama-perplexity -m MODEL -c CTX -b CTX
 *     -ub UB -fa on|off -ngl N -f /dev/null --no-warmup -fit off -lv 4
 *   <the unedited stderr lines that carry buffer sizes, the device used
 *    and the context's parameters>
 * (the context is built, then the empty input ends the run: no compute;
 * the first captures ran llama-batched-bench -b 2048 -npp 1 -ntg 1 -npl 1,
 * whose warm-up a software device computes slowly; either reads)
 * The same blocks serve llama-server's loads (its -np and -kvu read) and
 * llama-fit-params --fit-print's rows (tests/fixtures/llama.cpp/arch-sweep-*;
 * bench/servermem.h judges them).
 * (tests/fixtures/llama.cpp/alloc-sweep-BUILD-BACKEND/cases.txt; perf/
 * perf_compute_buffer writes them from live engines). Here: reading them, the shapes of the
 * models they name, and the verdict of one case. Text only: not for running
 * an engine (the perf program does). */
#ifndef LVD_BENCH_CBUFCASES_H
#define LVD_BENCH_CBUFCASES_H

#include "common/gguf.h"
#include "common/types.h"
#include "common/util.h"
#include "engine/fitprint.h"
#include "placement/cbuf.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bench_cbuf_case {
    char model[128];        /* the -m file name, without its directory */
    uint32_t ctx, ubatch;   /* -c, -ub */
    int fa;                 /* -fa: 1 on, 0 off */
    int ngl;                /* -ngl; -1 when not given */
    int n_cpu_moe;          /* -ncmoe */
    int gpu;                /* a device buffer was reported (not a CPU-only engine) */
    int in_graph_order;     /* the command set GGML_VK_DISABLE_GRAPH_OPTIMIZE=1: Vulkan kept
                               each split's nodes in the graph's order */
    placement_cbuf_dev dev; /* the device's limits (placement_cbuf_dev_of) from its
                               "llama_prepare_model_devices: using device SEL (NAME)" line;
                               zero when none was logged */
    lvd_alloc *alloc;       /* the buffers reported, per device ("CPU": every host buffer) */
    size_t n_alloc;
    char tool[32];          /* the program run: "llama-perplexity", "llama-server",
                               "llama-fit-params" */
    int np, kvu;            /* llama-server's -np (0: not given) and -kvu */
    int has_fitprint;       /* llama-fit-params --fit-print: its rows were read */
    engine_fitprint fitprint;
} bench_cbuf_case;

/* The verdict of one case: predicted and actual compute buffers and device
 * totals (model + KV + compute), MiB, and their ratios (predicted / actual). */
typedef struct bench_cbuf_verdict {
    int predicted;          /* 0: the estimate fell back to the seed's constant */
    double pred_dev, act_dev;       /* the device's compute buffer; -1 for a CPU-only case */
    double pred_host, act_host;     /* the host's */
    double pred_total, act_total;   /* the device's (the host's for a CPU-only case) model + KV + compute */
    double ratio_compute;   /* of the device's buffer (the host's for a CPU-only case) */
    double ratio_host;      /* of the host's beside a device; -1 for a CPU-only case */
    double ratio_total;
} bench_cbuf_verdict;

/* Parses text[0..len) (the format above) into *out (n cases, free with
 * bench_cbuf_cases_free). Lines before the first "$ " are ignored. 0, or
 * -1 with err naming name and the line: a command without -m, -c or -ub. */
int bench_cbuf_cases_parse(const char *text, size_t len, const char *name, bench_cbuf_case **out,
                           size_t *n, lvd_err *err);
void bench_cbuf_cases_free(bench_cbuf_case *v, size_t n);

/* Reads a case's buffers and device from its stderr lines text[0..len) into
 * c (alloc, n_alloc, gpu, dev; free c->alloc): what bench_cbuf_cases_parse
 * does for each "$ " block, for a whole captured stderr. 0, or -1 with err. */
int bench_cbuf_case_read(bench_cbuf_case *c, const char *text, size_t len, lvd_err *err);

/* The "$ ..." line of a case, llama-perplexity's (malloc'd): gpu adds the
 * variable that makes Mesa's software device visible. */
char *bench_cbuf_case_command(const char *model, uint32_t ctx, uint32_t ubatch, int fa, int ngl,
                              int gpu);

/* The shape of a model perf_compute_buffer measures, as gguf_read_shape
 * reads the files perf/make-alloc-models.py writes (the unit test and
 * the benchmark's captured mode have no model files); 0, or -1 when model
 * is not one of them. */
int bench_cbuf_known_shape(const char *model, gguf_shape *out);

/* The shape of model from its header alone: dir/MODEL.head (a GGUF header,
 * perf/gguf-head.py writes it without the tokenizer's arrays) and
 * dir/MODEL.size (the whole file's size in bytes). 0, or -1 with err. */
int bench_cbuf_head_shape(const char *dir, const char *model, gguf_shape *out, lvd_err *err);

/* The shape of a case's model: read from models_dir/model where that file
 * is readable (models_dir may be NULL), else from its header there
 * (bench_cbuf_head_shape), else its known shape. 0, or -1 with err. */
int bench_cbuf_shape(const char *models_dir, const char *model, gguf_shape *out, lvd_err *err);

/* The buffers a case reported for the host (host 1: device "CPU") or for
 * its device (0); NULL when none. */
const lvd_alloc *bench_cbuf_case_row(const bench_cbuf_case *c, int host);

/* pred / act; -1 when pred is unknown (< 0) or act is not positive. */
double bench_cbuf_ratio(double pred, double act);

/* The verdict of case c for shape s (placement's prediction at the case's
 * context, ubatch, flash attention and -ngl, the KV cache f16). */
void bench_cbuf_judge(const bench_cbuf_case *c, const gguf_shape *s, bench_cbuf_verdict *out);

#endif
