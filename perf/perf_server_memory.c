/* perf_server_memory.c: what lvd select predicts for the line it prints
 * against what that line's program, llama-server, allocates, per
 * architecture and setting (bench/servermem.h). Each llama-server load of
 * the captured cases (perf/capture-arch-sweep.sh writes them from a
 * real build: tests/fixtures/llama.cpp/arch-sweep-*) is priced twice: from
 * the GGUF shape alone (a build without llama-fit-params), and with
 * llama.cpp's own figures (the llama-fit-params --fit-print block of the
 * same model, context, ubatch and flash attention, as lvd bench records
 * them). Per case: the KV cache with the recurrent state and the compute
 * buffer, actual MiB and each prediction's ratio predicted / actual with its
 * source; then per architecture the lowest and highest ratio of each, and
 * how many cases meet the goal (KV and state within 10 %, compute within
 * 15 %; docs/compatibility.md). Cases that ran on a device (a Vulkan
 * build: tests/fixtures/llama.cpp/arch-sweep-b10587-vulkan) are judged on
 * the device's own buffers (model, KV and state, compute), with the
 * host's compute buffer beside it; where any case did, both tables gain
 * the model (goal 10 %) and host compute (15 %) columns. Not a pass/fail
 * test.
 *
 * Usage: perf_server_memory [--summary] [--models DIR] CASES.txt...
 *   DIR holds the models the cases name (perf/make-arch-models.py
 *   writes them; only their headers are read), or their headers alone
 *   (NAME.head and NAME.size, perf/gguf-head.py); default:
 *   tests/fixtures/models/arch-heads (run from the repository). */
#include "bench/servermem.h"
#include "placement/cbuf.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARCHS 48

/* The columns: each figure from the shape ([0]) and with llama-fit-params ([1]). */
enum { COL_KV, COL_COMPUTE = 2, COL_MODEL = 4, COL_HOST = 6, N_COLS = 8 };
static const double goal_of[N_COLS / 2] = {0.10, 0.15, 0.10, 0.15};

typedef struct span {
    double lo, hi;
    size_t n, met;
} span;

typedef struct arch_row {
    char arch[64];
    span col[N_COLS];
    char compute_from[2][32];
} arch_row;

typedef struct tally {
    arch_row rows[MAX_ARCHS];
    size_t n;
    int summary;
    int device; /* some case ran on a device: the model and host compute columns too */
} tally;

static void widen(span *s, double r, double goal)
{
    if (r < 0)
        return;
    if (!s->n || r < s->lo)
        s->lo = r;
    if (!s->n || r > s->hi)
        s->hi = r;
    s->n++;
    s->met += fabs(r - 1) <= goal;
}

static arch_row *row_of(tally *t, const char *arch)
{
    for (size_t i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].arch, arch))
            return &t->rows[i];
    if (t->n == MAX_ARCHS)
        return NULL;
    arch_row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    snprintf(r->arch, sizeof r->arch, "%s", arch);
    return r;
}

/* "1.000" or "-" (no llama-fit-params, or a figure not known). */
static void fmt_ratio(char *buf, size_t size, int have, double r)
{
    if (have && r >= 0)
        snprintf(buf, size, "%.3f", r);
    else
        snprintf(buf, size, "-");
}

/* The device's model and the host's compute columns of one case's row. */
static void print_device_cells(const bench_server_verdict v[2], int fit)
{
    char m[2][32], h[2][32];
    for (int k = 0; k < 2; k++) {
        fmt_ratio(m[k], sizeof m[k], k == 0 || fit, v[k].ratio_model);
        fmt_ratio(h[k], sizeof h[k], k == 0 || fit, v[k].ratio_host);
    }
    printf(" %.2f | %s | %s | %.2f | %s | %s |", v[0].act_model, m[0], m[1], v[0].act_host, h[0], h[1]);
}

static void print_case(const tally *t, const gguf_shape *s, const bench_cbuf_case *c, const bench_server_verdict v[2],
                       int fit)
{
    char kv_fit[32] = "-", compute_fit[64] = "-";
    if (fit) {
        snprintf(kv_fit, sizeof kv_fit, "%.3f", v[1].ratio_kv);
        snprintf(compute_fit, sizeof compute_fit, "%.3f (%s)", v[1].ratio_compute,
                 placement_source_name(v[1].compute_from));
    }
    printf("| %s | %u | %u | %s | %d%s | %.2f | %.3f | %s | %.2f | %.3f (%s) | %s |", placement_cbuf_rule(s), c->ctx, c->ubatch,
           c->fa ? "on" : "off", c->np, c->kvu ? " -kvu" : "", v[0].act_kv, v[0].ratio_kv, kv_fit, v[0].act_compute,
           v[0].ratio_compute, placement_source_name(v[0].compute_from), compute_fit);
    if (t->device)
        print_device_cells(v, fit);
    printf("\n");
}

static void judge(const bench_cbuf_case *cs, size_t n, const bench_cbuf_case *c, const char *models, tally *t)
{
    gguf_shape s;
    lvd_err err = {{0}};
    if (bench_cbuf_shape(models, c->model, &s, &err) != 0) {
        fprintf(stderr, "perf_server_memory: %s (perf/make-arch-models.py writes it)\n", err.msg);
        return;
    }
    const bench_cbuf_case *fit = bench_server_fitprint_of(cs, n, c);
    bench_server_verdict v[2];
    bench_server_judge(c, NULL, &s, &v[0]);
    bench_server_judge(c, fit, &s, &v[1]);
    arch_row *r = row_of(t, placement_cbuf_rule(&s));
    if (!v[0].priced)
        fprintf(stderr, "perf_server_memory: %s -c %u: not priced: %s\n", c->model, c->ctx, v[0].why);
    if (!r || !v[0].priced)
        return;
    for (int k = 0; k < 2; k++) {
        if (k == 1 && !fit)
            continue;
        const double ratio[N_COLS / 2] = {v[k].ratio_kv, v[k].ratio_compute, v[k].ratio_model, v[k].ratio_host};
        for (int col = 0; col < N_COLS / 2; col++)
            widen(&r->col[2 * col + k], ratio[col], goal_of[col]);
        snprintf(r->compute_from[k], sizeof r->compute_from[k], "%s", placement_source_name(v[k].compute_from));
    }
    if (!t->summary)
        print_case(t, &s, c, v, fit != NULL);
}

static void print_span(const span *s)
{
    if (s->n)
        printf(" %.3f-%.3f (%zu/%zu) |", s->lo, s->hi, s->met, s->n);
    else
        printf(" - |");
}

/* 1 when every load of r its graph prices is within the goal from the shape
 * alone: KV + state and compute, and beside a device the host's compute. */
static int arch_within(const tally *t, const arch_row *r)
{
    const int need[] = {COL_KV, COL_COMPUTE, COL_HOST};
    for (size_t i = 0; i < (t->device ? 3u : 2u); i++) {
        const span *c = &r->col[need[i]];
        if (!c->n || c->met != c->n)
            return 0;
    }
    return 1;
}

/* The line that says which architectures meet the goal in every load. */
static void print_within(const tally *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += (size_t)arch_within(t, &t->rows[i]);
    printf("within the goal in every load, from the shape (KV + state, compute%s): %zu of %zu architectures:",
           t->device ? ", the host's compute" : "", n, t->n);
    const char *sep = " ";
    for (size_t i = 0; i < t->n; i++)
        if (arch_within(t, &t->rows[i])) {
            printf("%s%s", sep, t->rows[i].arch);
            sep = ", ";
        }
    printf("\n");
}

static void print_summary(const tally *t)
{
    int cols = t->device ? N_COLS : COL_MODEL;
    printf("\n| arch | KV+state, shape | KV+state, llama-fit-params | compute, shape | compute, llama-fit-params |%s\n"
           "|---|---|---|---|---|%s\n",
           t->device ? " model, shape | model, llama-fit-params | host compute, shape |"
                       " host compute, llama-fit-params |"
                     : "",
           t->device ? "---|---|---|---|" : "");
    span all[N_COLS] = {{0}};
    for (size_t i = 0; i < t->n; i++) {
        const arch_row *r = &t->rows[i];
        printf("| %s |", r->arch);
        for (int k = 0; k < cols; k++) {
            const span *col = &r->col[k];
            print_span(col);
            if (col->n) {
                widen(&all[k], col->lo, 1e9);
                widen(&all[k], col->hi, 1e9);
                all[k].met += col->met - 2; /* widen counted the two ends as cases */
                all[k].n += col->n - 2;
            }
        }
        printf(" (compute from %s / %s)\n", r->compute_from[0], r->compute_from[1][0] ? r->compute_from[1] : "-");
    }
    printf("| all |");
    for (int k = 0; k < cols; k++)
        print_span(&all[k]);
    printf("\n\nratio = predicted / actual, lowest-highest (cases within the goal / cases); "
           "goal: KV and recurrent state within 10 %%, compute within 15 %%%s\n",
           t->device ? "; on a device, its model buffer within 10 %, the host's compute buffer within 15 %" : "");
    print_within(t);
}

typedef struct cases_file {
    bench_cbuf_case *cs;
    size_t n;
} cases_file;

/* Reads path's cases into *f (none when it cannot: rc 1, said on stderr);
 * notes in t whether one of its llama-server loads ran on a device. */
static int read_cases(const char *path, cases_file *f, tally *t)
{
    lvd_sb text = {0};
    lvd_err err = {{0}};
    int rc = 0;
    f->cs = NULL;
    f->n = 0;
    if (lvd_read_file(path, 64u << 20, &text, &err) != 0 ||
        bench_cbuf_cases_parse(text.buf ? text.buf : "", text.len, path, &f->cs, &f->n, &err) != 0) {
        fprintf(stderr, "perf_server_memory: %s\n", err.msg);
        rc = 1;
    }
    for (size_t k = 0; k < f->n; k++)
        t->device |= !strcmp(f->cs[k].tool, "llama-server") && f->cs[k].gpu;
    lvd_sb_free(&text);
    return rc;
}

static void print_case_header(const tally *t)
{
    printf("| arch | -c | -ub | -fa | -np | KV+state MiB | KV, shape | KV, llama-fit-params | compute MiB |"
           " compute, shape | compute, llama-fit-params |%s\n|---|---|---|---|---|---|---|---|---|---|---|%s\n",
           t->device ? " model MiB | model, shape | model, llama-fit-params | host compute MiB |"
                       " host compute, shape | host compute, llama-fit-params |"
                     : "",
           t->device ? "---|---|---|---|---|---|" : "");
}

int main(int argc, char **argv)
{
    tally *t = lvd_xcalloc(1, sizeof *t);
    const char *models = "tests/fixtures/models/arch-heads";
    int first = 1, rc = 0;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--summary"))
            t->summary = 1;
        else if (!strcmp(argv[first], "--models") && first + 1 < argc)
            models = argv[++first];
        else
            break;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: perf_server_memory [--summary] [--models DIR] CASES.txt...\n"
                        "  e.g. perf_server_memory --models /tmp/arch-models "
                        "tests/fixtures/llama.cpp/arch-sweep-b10587-cpu/cases.txt\n");
        free(t);
        return 2;
    }
    cases_file *files = lvd_xcalloc((size_t)(argc - first), sizeof *files);
    for (int i = first; i < argc; i++)
        rc |= read_cases(argv[i], &files[i - first], t);
    if (!t->summary)
        print_case_header(t);
    for (int i = 0; i < argc - first; i++) {
        for (size_t k = 0; k < files[i].n; k++)
            if (!strcmp(files[i].cs[k].tool, "llama-server") && files[i].cs[k].n_alloc)
                judge(files[i].cs, files[i].n, &files[i].cs[k], models, t);
        bench_cbuf_cases_free(files[i].cs, files[i].n);
    }
    print_summary(t);
    free(files);
    free(t);
    return rc;
}
