/* alloc.c: placement predicted next to actual on the evidence page (issue
 * 14): rows from each run's lvd_alloc (store: run_alloc), the per-model
 * table and the per-backend error of the estimator. Not for reading the
 * store (load.c) nor for the allocation lines (engine/alloclog.c). */
#include "evidence/format.h"
#include "evidence/render.h"
#include "placement/correction.h"
#include "select/armset.h"
#include "stats/stats.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "Vulkan0" -> "vulkan", "CUDA1" -> "cuda", "CPU" -> "cpu". */
static void backend_of(const char *device, char out[16])
{
    size_t n = 0;
    for (; device[n] && !isdigit((unsigned char)device[n]) && n < 15; n++)
        out[n] = (char)tolower((unsigned char)device[n]);
    out[n] = '\0';
}

void ev_alloc_build(ev_model *m, const lvd_run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(runs[i].status, "ok") != 0)
            continue; /* a load that died printed part of its buffers */
        for (size_t k = 0; k < runs[i].n_alloc; k++) {
            const lvd_alloc *a = &runs[i].alloc[k];
            const char *arm = runs[i].arm_key ? runs[i].arm_key : "?";
            for (size_t j = 0; j < m->n_alloc; j++)
                if (!strcmp(m->alloc[j].arm, arm) && !strcmp(m->alloc[j].a.device, a->device) &&
                    runs[i].started_at >= 0)
                    m->alloc[j].newest = 0; /* runs come oldest first */
            m->alloc = lvd_xrealloc(m->alloc, (m->n_alloc + 1) * sizeof *m->alloc);
            ev_alloc_row *r = &m->alloc[m->n_alloc++];
            memset(r, 0, sizeof *r);
            r->arm = lvd_xstrdup(arm);
            r->words = sel_params_brief(&runs[i].params);
            r->a = *a;
            snprintf(r->a.build, sizeof r->a.build, "%s", runs[i].build ? runs[i].build : "");
            r->newest = 1;
            backend_of(a->device, r->backend);
        }
    }
}

void ev_alloc_free(ev_model *m)
{
    for (size_t i = 0; i < m->n_alloc; i++) {
        free(m->alloc[i].arm);
        free(m->alloc[i].words);
    }
    free(m->alloc);
    m->alloc = NULL;
    m->n_alloc = 0;
}

static void mib_cell(lvd_sb *sb, int64_t b)
{
    if (b < 0)
        lvd_sb_adds(sb, " – |");
    else
        lvd_sb_addf(sb, " %.2f |", (double)b / 1048576.0);
}

static int64_t total(int64_t a, int64_t b, int64_t c)
{
    return (a < 0 ? 0 : a) + (b < 0 ? 0 : b) + (c < 0 ? 0 : c);
}

/* actual / predicted of the weights; -1 when either is missing. */
static double weights_ratio(const lvd_alloc *a)
{
    return a->model >= 0 && a->pred_model > 0 ? (double)a->model / (double)a->pred_model : -1;
}

/* actual / predicted of the compute buffer; -1 when either is missing. */
static double compute_ratio(const lvd_alloc *a)
{
    return a->compute >= 0 && a->pred_compute > 0 ? (double)a->compute / (double)a->pred_compute : -1;
}

static double total_ratio(const lvd_alloc *a)
{
    int64_t act = total(a->model, a->kv, a->compute);
    int64_t pred = total(a->pred_model, a->pred_kv, a->pred_compute);
    return a->model >= 0 && pred > 0 ? (double)act / (double)pred : -1;
}

static void ratio_cell(lvd_sb *sb, double r)
{
    if (r < 0)
        lvd_sb_adds(sb, " – |");
    else
        lvd_sb_addf(sb, " %.3f |", r);
}

void ev_alloc_render_model(lvd_sb *sb, const ev_model *m)
{
    size_t shown = 0;
    for (size_t i = 0; i < m->n_alloc; i++)
        shown += m->alloc[i].newest;
    if (!shown)
        return;
    lvd_sb_adds(sb, "\n### Placement: predicted next to actual\n\n"
                    "MiB per device, newest run of each arm: what placement predicted for the arm's "
                    "flags (compute: the compute buffer it predicts from the model's shape, or the "
                    "seed's constant where the shape does not say) and what llama.cpp reported it "
                    "allocated (llama-bench -v). Ratios are actual / predicted.\n\n"
                    "| arm | device | pred. model | pred. KV | pred. compute | model | KV | compute "
                    "| ratio weights | ratio total |\n"
                    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < m->n_alloc; i++) {
        const ev_alloc_row *r = &m->alloc[i];
        if (!r->newest)
            continue;
        lvd_sb_adds(sb, "| ");
        ev_md_cell(sb, r->words);
        lvd_sb_adds(sb, " | ");
        ev_md_cell(sb, r->a.device);
        lvd_sb_adds(sb, " |");
        mib_cell(sb, r->a.pred_model);
        mib_cell(sb, r->a.pred_kv);
        mib_cell(sb, r->a.pred_compute);
        mib_cell(sb, r->a.model);
        mib_cell(sb, r->a.kv);
        mib_cell(sb, r->a.compute);
        ratio_cell(sb, weights_ratio(&r->a));
        ratio_cell(sb, total_ratio(&r->a));
        lvd_sb_adds(sb, "\n");
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef double (*ratio_fn)(const lvd_alloc *a);

/* The ratios (by fn) of backend over every model's rows, sorted. */
static size_t ratios(const ev_page *p, const char *backend, ratio_fn fn, double **out)
{
    size_t n = 0;
    double *v = NULL;
    for (size_t i = 0; i < p->n_models; i++) {
        for (size_t k = 0; k < p->models[i].n_alloc; k++) {
            const ev_alloc_row *r = &p->models[i].alloc[k];
            double x = fn(&r->a);
            if (strcmp(r->backend, backend) || x < 0)
                continue;
            v = lvd_xrealloc(v, (n + 1) * sizeof *v);
            v[n++] = x;
        }
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_double);
    *out = v;
    return n;
}

/* " 0.981 | 0.950–1.010 |" for sorted v[0..n), or dashes. */
static void median_range(lvd_sb *sb, const double *v, size_t n)
{
    if (n)
        lvd_sb_addf(sb, " %.3f | %.3f–%.3f |", stats_median(v, n), v[0], v[n - 1]);
    else
        lvd_sb_adds(sb, " – | – |");
}

/* The distinct values of key over every model's rows (at most 16). */
static size_t distinct(const ev_page *p, int by_build, char seen[16][32])
{
    size_t n_seen = 0;
    for (size_t i = 0; i < p->n_models; i++)
        for (size_t k = 0; k < p->models[i].n_alloc && n_seen < 16; k++) {
            const ev_alloc_row *r = &p->models[i].alloc[k];
            char key[32];
            snprintf(key, sizeof key, "%s%s%.15s", r->backend, by_build ? " " : "",
                     by_build ? r->a.build : "");
            size_t j = 0;
            while (j < n_seen && strcmp(seen[j], key))
                j++;
            if (j == n_seen)
                snprintf(seen[n_seen++], sizeof seen[0], "%s", key);
        }
    return n_seen;
}

/* The margin correction placement draws from these rows, per device
 * backend and build (placement/correction.h), and which way it moved. */
static void render_corrections(lvd_sb *sb, const ev_page *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n_models; i++)
        n += p->models[i].n_alloc;
    lvd_alloc *rows = lvd_xcalloc(n ? n : 1, sizeof *rows);
    n = 0;
    for (size_t i = 0; i < p->n_models; i++)
        for (size_t k = 0; k < p->models[i].n_alloc; k++)
            rows[n++] = p->models[i].alloc[k].a;
    char seen[16][32];
    size_t n_seen = distinct(p, 1, seen);
    int header = 0;
    for (size_t j = 0; j < n_seen; j++) {
        char backend[16], *sp = strchr(seen[j], ' ');
        snprintf(backend, sizeof backend, "%.*s", (int)(sp ? sp - seen[j] : 15), seen[j]);
        if (!strcmp(backend, "cpu"))
            continue;
        placement_correction c;
        placement_correction_compute(rows, n, backend, sp ? sp + 1 : "", &c);
        if (!header)
            lvd_sb_adds(sb, "\nThe margin correction placement draws from these rows (per backend and "
                            "build: the 90th percentile of the total ratios, bounded to "
                            "0.75–3, and which way it moved the device need):\n\n");
        header = 1;
        lvd_sb_adds(sb, "- ");
        ev_md_cell(sb, c.why);
        lvd_sb_adds(sb, "\n");
    }
    free(rows);
}

void ev_alloc_render_summary(lvd_sb *sb, const ev_page *p)
{
    char seen[16][32];
    size_t n_seen = distinct(p, 0, seen);
    int header = 0;
    for (size_t j = 0; j < n_seen; j++) {
        double *w, *c, *t;
        size_t nw = ratios(p, seen[j], weights_ratio, &w), nc = ratios(p, seen[j], compute_ratio, &c),
               nt = ratios(p, seen[j], total_ratio, &t);
        if (nw && !header) {
            lvd_sb_adds(sb, "\n## Placement estimator error\n\n"
                            "Every recorded run: actual / predicted per device, by backend: the "
                            "weights alone, the compute buffer alone, and model + KV + compute "
                            "against weights + KV + the predicted compute buffer.\n\n"
                            "| backend | runs | median ratio weights | range | median ratio compute | "
                            "range | median ratio total | range |\n"
                            "|---|---:|---:|---|---:|---|---:|---|\n");
            header = 1;
        }
        if (nw) {
            lvd_sb_addf(sb, "| %s | %zu |", seen[j], nw);
            median_range(sb, w, nw);
            median_range(sb, c, nc);
            median_range(sb, t, nt);
            lvd_sb_adds(sb, "\n");
        }
        free(w);
        free(c);
        free(t);
    }
    if (header)
        render_corrections(sb, p);
}
