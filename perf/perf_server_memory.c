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
 * 15 %; docs/compatibility.md). Not a pass/fail test.
 *
 * Usage: perf_server_memory [--summary] [--models DIR] CASES.txt...
 *   DIR holds the models the cases name (perf/make-arch-models.py
 *   writes them; only their headers are read), or their headers alone
 *   (NAME.head and NAME.size, perf/gguf-head.py); default:
 *   tests/fixtures/models/arch-heads (run from the repository). */
#include "bench/servermem.h"
#include "common/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARCHS 48

typedef struct span {
    double lo, hi;
    size_t n, met;
} span;

typedef struct arch_row {
    char arch[64];
    span kv[2], compute[2]; /* [0] the shape's, [1] with llama-fit-params */
    char compute_from[2][32];
} arch_row;

typedef struct tally {
    arch_row rows[MAX_ARCHS];
    size_t n;
    int summary;
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
    arch_row *r = row_of(t, s.arch);
    if (!v[0].priced)
        fprintf(stderr, "perf_server_memory: %s -c %u: not priced: %s\n", c->model, c->ctx, v[0].why);
    if (!r || !v[0].priced)
        return;
    for (int k = 0; k < 2; k++) {
        if (k == 1 && !fit)
            continue;
        widen(&r->kv[k], v[k].ratio_kv, 0.10);
        widen(&r->compute[k], v[k].ratio_compute, 0.15);
        snprintf(r->compute_from[k], sizeof r->compute_from[k], "%s", placement_source_name(v[k].compute_from));
    }
    if (t->summary)
        return;
    char kv_fit[32] = "-", compute_fit[64] = "-";
    if (fit) {
        snprintf(kv_fit, sizeof kv_fit, "%.3f", v[1].ratio_kv);
        snprintf(compute_fit, sizeof compute_fit, "%.3f (%s)", v[1].ratio_compute,
                 placement_source_name(v[1].compute_from));
    }
    printf("| %s | %u | %u | %s | %d%s | %.2f | %.3f | %s | %.2f | %.3f (%s) | %s |\n", s.arch, c->ctx, c->ubatch,
           c->fa ? "on" : "off", c->np, c->kvu ? " -kvu" : "", v[0].act_kv, v[0].ratio_kv, kv_fit, v[0].act_compute,
           v[0].ratio_compute, placement_source_name(v[0].compute_from), compute_fit);
}

static void print_span(const span *s)
{
    if (s->n)
        printf(" %.3f-%.3f (%zu/%zu) |", s->lo, s->hi, s->met, s->n);
    else
        printf(" - |");
}

static void print_summary(const tally *t)
{
    printf("\n| arch | KV+state, shape | KV+state, llama-fit-params | compute, shape | compute, llama-fit-params |\n"
           "|---|---|---|---|---|\n");
    span all[4] = {{0}};
    for (size_t i = 0; i < t->n; i++) {
        const arch_row *r = &t->rows[i];
        printf("| %s |", r->arch);
        const span *col[4] = {&r->kv[0], &r->kv[1], &r->compute[0], &r->compute[1]};
        for (int k = 0; k < 4; k++) {
            print_span(col[k]);
            if (col[k]->n) {
                widen(&all[k], col[k]->lo, 1e9);
                widen(&all[k], col[k]->hi, 1e9);
                all[k].met += col[k]->met - 2; /* widen counted the two ends as cases */
                all[k].n += col[k]->n - 2;
            }
        }
        printf(" (compute from %s / %s)\n", r->compute_from[0], r->compute_from[1][0] ? r->compute_from[1] : "-");
    }
    printf("| all |");
    for (int k = 0; k < 4; k++)
        print_span(&all[k]);
    printf("\n\nratio = predicted / actual, lowest-highest (cases within the goal / cases); "
           "goal: KV and recurrent state within 10 %%, compute within 15 %%\n");
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
    if (!t->summary)
        printf("| arch | -c | -ub | -fa | -np | KV+state MiB | KV, shape | KV, llama-fit-params | compute MiB |"
               " compute, shape | compute, llama-fit-params |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (int i = first; i < argc; i++) {
        lvd_sb text = {0};
        lvd_err err = {{0}};
        bench_cbuf_case *cs = NULL;
        size_t n = 0;
        if (lvd_read_file(argv[i], 64u << 20, &text, &err) != 0 ||
            bench_cbuf_cases_parse(text.buf ? text.buf : "", text.len, argv[i], &cs, &n, &err) != 0) {
            fprintf(stderr, "perf_server_memory: %s\n", err.msg);
            rc = 1;
        }
        for (size_t k = 0; k < n; k++)
            if (!strcmp(cs[k].tool, "llama-server") && cs[k].n_alloc)
                judge(cs, n, &cs[k], models, t);
        bench_cbuf_cases_free(cs, n);
        lvd_sb_free(&text);
    }
    print_summary(t);
    free(t);
    return rc;
}
