/* serving.c: the evidence page's serving section (model.h ev_serve_build,
 * render.h ev_serve_render_model and ev_svg_serve): lvd serve's arms
 * grouped into launch lines (the arm without -np, per prompt shape), each N
 * a point with the p50 and p95 time to first token of the kept requests
 * and the aggregate t/s (the serve-tps samples' median with its bootstrap
 * CI, the rule every figure of the page has); the lines ranked by their
 * aggregate t/s at their largest N. Pure. Not for the store (load.c). */
#include "evidence/format.h"
#include "evidence/render.h"
#include "evidence/svgkit.h"

#include "stats/serving.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- the lines ------------------------------------------------------------ */

/* The line of label and shape (P, G) in m, added when new. */
static ev_serve_line *line_of(ev_model *m, const char *label, const char *backend, int p, int g)
{
    for (size_t i = 0; i < m->n_serve; i++)
        if (!strcmp(m->serve[i].label, label) && m->serve[i].n_prompt == p && m->serve[i].n_gen == g)
            return &m->serve[i];
    m->serve = lvd_xrealloc(m->serve, (m->n_serve + 1) * sizeof *m->serve);
    ev_serve_line *l = &m->serve[m->n_serve++];
    memset(l, 0, sizeof *l);
    l->label = lvd_xstrdup(label);
    snprintf(l->backend, sizeof l->backend, "%s", backend ? backend : "");
    l->n_prompt = p;
    l->n_gen = g;
    return l;
}

/* One point: the arm's serving series of shape (p, g) at N. */
static void fill_point(ev_serve_point *pt, const ev_serve_in *x, const sel_series *ttft, const sel_series *tps,
                       const stats_rule *rule)
{
    memset(pt, 0, sizeof *pt);
    pt->clients = x->arm->params.parallel;
    pt->is_verdict = x->is_verdict;
    snprintf(pt->status, sizeof pt->status, "%s", x->arm->status);
    pt->why = x->arm->reason && strcmp(x->arm->status, "ok") ? lvd_xstrdup(x->arm->reason) : NULL;
    pt->ttft_p50 = pt->ttft_p95 = NAN;
    if (ttft && ttft->n) {
        double *ms = lvd_xmalloc(ttft->n * sizeof *ms);
        for (size_t i = 0; i < ttft->n; i++)
            ms[i] = 1e3 * ttft->n_prompt / ttft->ts[i]; /* the sample is P / TTFT */
        pt->ttft_p50 = stats_quantile(ms, ttft->n, 0.5);
        pt->ttft_p95 = stats_quantile(ms, ttft->n, STATS_SERVE_BOUND_Q);
        free(ms);
    }
    if (!tps)
        return;
    snprintf(pt->tps.test, sizeof pt->tps.test, "%s", tps->test);
    pt->tps.n = tps->n;
    pt->tps.n_warmup = tps->n_warmup;
    if (!tps->n)
        return;
    pt->tps.has = 1;
    pt->tps.median = stats_median(tps->ts, tps->n);
    const double one = 1.0;
    if (stats_bootstrap_ratio_ci(tps->ts, tps->n, &one, 1, rule->boot_b, rule->level, rule->seed, &pt->tps.lo,
                                 &pt->tps.hi) != 0)
        pt->tps.lo = pt->tps.hi = pt->tps.median;
}

/* The arm's serving series of kind with shape (p, g), or NULL. */
static const sel_series *series(const sel_arm *a, stats_serve_kind kind, int p, int g)
{
    char name[48];
    stats_serve_test_name(kind, p, g, name, sizeof name);
    return sel_arm_series(a, name);
}

static void add_arm(ev_model *m, const ev_serve_in *x, const stats_rule *rule)
{
    lvd_params base = x->arm->params;
    base.parallel = 0;
    char *label = sel_arm_words(x->backend, x->engine, &base);
    for (size_t k = 0; k < x->arm->n_series; k++) {
        int p, g;
        if (stats_serve_test_kind(x->arm->series[k].test, &p, &g) != STATS_SERVE_TPS)
            continue;
        ev_serve_line *l = line_of(m, label, x->backend, p, g);
        l->pts = lvd_xrealloc(l->pts, (l->n_pts + 1) * sizeof *l->pts);
        fill_point(&l->pts[l->n_pts++], x, series(x->arm, STATS_SERVE_TTFT, p, g), &x->arm->series[k], rule);
    }
    free(label);
}

static int cmp_point(const void *a, const void *b)
{
    const ev_serve_point *x = a, *y = b;
    return (x->clients > y->clients) - (x->clients < y->clients);
}

/* The figure a line is ranked by: aggregate t/s at its largest N with figures. */
static const ev_serve_point *top_point(const ev_serve_line *l)
{
    for (size_t i = l->n_pts; i > 0; i--)
        if (l->pts[i - 1].tps.has)
            return &l->pts[i - 1];
    return NULL;
}

static int cmp_line(const void *a, const void *b)
{
    const ev_serve_point *x = top_point(a), *y = top_point(b);
    if (!x || !y)
        return (!x) - (!y);
    if (x->clients != y->clients)
        return x->clients > y->clients ? -1 : 1;
    if (x->tps.median != y->tps.median)
        return x->tps.median > y->tps.median ? -1 : 1;
    return (x->ttft_p50 > y->ttft_p50) - (x->ttft_p50 < y->ttft_p50);
}

void ev_serve_build(ev_model *m, const ev_serve_in *in, size_t n)
{
    stats_rule rule;
    stats_rule_default(&rule);
    for (size_t i = 0; i < n; i++)
        add_arm(m, &in[i], &rule);
    for (size_t i = 0; i < m->n_serve; i++)
        if (m->serve[i].n_pts > 1)
            qsort(m->serve[i].pts, m->serve[i].n_pts, sizeof *m->serve[i].pts, cmp_point);
    if (m->n_serve > 1) /* never qsort(NULL, 0, ...): a model lvd serve never measured */
        qsort(m->serve, m->n_serve, sizeof *m->serve, cmp_line);
    for (size_t i = 0, r = 0; i < m->n_serve; i++)
        m->serve[i].rank = top_point(&m->serve[i]) ? ++r : 0;
}

void ev_serve_free(ev_model *m)
{
    for (size_t i = 0; i < m->n_serve; i++) {
        for (size_t k = 0; k < m->serve[i].n_pts; k++)
            free(m->serve[i].pts[k].why);
        free(m->serve[i].pts);
        free(m->serve[i].label);
    }
    free(m->serve);
    m->serve = NULL;
    m->n_serve = 0;
}

/* --- the section ---------------------------------------------------------- */

static void ms_cell(lvd_sb *sb, double v)
{
    if (isnan(v))
        lvd_sb_adds(sb, "–");
    else
        lvd_sb_addf(sb, v >= 100 ? "%.0f" : "%.1f", v);
}

void ev_serve_render_model(lvd_sb *sb, const ev_model *m, const char *page_path)
{
    if (!m->n_serve)
        return;
    lvd_sb_adds(sb, "\n### Serving under load\n\nEach launch line run as a real llama-server with `-np N` under "
                    "N concurrent clients (`lvd serve`; a request: P prompt tokens, G generated, streamed). Time to "
                    "first token (TTFT) of the kept requests; aggregate t/s: the generation rate N clients reach at "
                    "each request's latency, median with 95 % CI.\n\n");
    lvd_sb_adds(sb, "| # | launch line | N | P+G | TTFT p50 ms | TTFT p95 ms | aggregate t/s [95 % CI] | requests "
                    "(warm-up) | status |\n|---:|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (size_t i = 0; i < m->n_serve; i++) {
        const ev_serve_line *l = &m->serve[i];
        for (size_t k = 0; k < l->n_pts; k++) {
            const ev_serve_point *pt = &l->pts[k];
            if (l->rank)
                lvd_sb_addf(sb, "| %zu | ", l->rank);
            else
                lvd_sb_adds(sb, "| – | ");
            ev_md_cell(sb, l->label);
            lvd_sb_addf(sb, "%s | %d | %d+%d | ", pt->is_verdict ? " ★" : "", pt->clients, l->n_prompt, l->n_gen);
            ms_cell(sb, pt->ttft_p50);
            lvd_sb_adds(sb, " | ");
            ms_cell(sb, pt->ttft_p95);
            lvd_sb_adds(sb, " | ");
            if (pt->tps.has)
                ev_fmt_ts_ci(sb, pt->tps.median, pt->tps.lo, pt->tps.hi);
            else
                lvd_sb_adds(sb, "–");
            lvd_sb_addf(sb, " | %zu (%zu) | ", pt->tps.n, pt->tps.n_warmup);
            ev_md_cell(sb, pt->status);
            if (pt->why) {
                lvd_sb_adds(sb, ": ");
                ev_md_cell(sb, pt->why);
            }
            lvd_sb_adds(sb, " |\n");
        }
    }
    ev_charts c;
    ev_model_charts(m, &c);
    if (c.serve) {
        char *name = ev_chart_name(page_path, m->sha256, "serve");
        lvd_sb_addf(sb, "\n![time to first token and aggregate t/s against N, leading launch lines](%s)\n", name);
        free(name);
    }
}

/* --- the chart ------------------------------------------------------------ */

/* The x positions: the distinct N of the shown lines, ascending. */
typedef struct serve_frame {
    double x0, x1;
    int ns[64];
    size_t n_ns;
} serve_frame;

static double n_x(const serve_frame *f, int clients)
{
    size_t k = 0;
    while (k + 1 < f->n_ns && f->ns[k] != clients)
        k++;
    return f->n_ns == 1 ? (f->x0 + f->x1) / 2 : f->x0 + (f->x1 - f->x0) * (double)k / (double)(f->n_ns - 1);
}

static void add_n(serve_frame *f, int clients)
{
    size_t k = 0;
    while (k < f->n_ns && f->ns[k] < clients)
        k++;
    if ((k < f->n_ns && f->ns[k] == clients) || f->n_ns == LVD_ARRAY_LEN(f->ns))
        return;
    memmove(&f->ns[k + 1], &f->ns[k], (f->n_ns - k) * sizeof *f->ns);
    f->ns[k] = clients;
    f->n_ns++;
}

static double point_value(const ev_serve_point *pt, int tps)
{
    return tps ? (pt->tps.has ? pt->tps.median : NAN) : pt->ttft_p50;
}

/* One panel (tps 0: TTFT p50 ms, 1: aggregate t/s) with its top at top. */
static void panel(lvd_sb *out, const ev_model *m, size_t shown, const serve_frame *f, double top, int tps)
{
    const double h = 160;
    double max = 0;
    for (size_t i = 0; i < shown; i++)
        for (size_t k = 0; k < m->serve[i].n_pts; k++) {
            double v = point_value(&m->serve[i].pts[k], tps);
            max = isfinite(v) && v > max ? v : max;
        }
    double step = ev_svg_nice_step(max > 0 ? max : 1, 4), axis = max > 0 ? ceil(max / step) * step : 1;
    double bottom = top + h;
    ev_svg_text(out, f->x0, top - 12, "start", "font-weight=\"bold\"",
                tps ? "aggregate t/s (median)" : "time to first token, p50 (ms)");
    for (double v = 0; v <= axis + step * 1e-9; v += step) {
        double y = bottom - v / axis * h;
        ev_svg_line(out, f->x0, y, f->x1, y, "stroke=\"#e0e0e0\" stroke-width=\"1\"");
        lvd_sb lbl = {0};
        ev_svg_tick_label(&lbl, v, step);
        ev_svg_text(out, f->x0 - 6, y + 4, "end", "fill=\"#555555\"", lvd_sb_str(&lbl));
        lvd_sb_free(&lbl);
    }
    for (size_t k = 0; k < f->n_ns; k++) {
        char lbl[32];
        snprintf(lbl, sizeof lbl, "N=%d", f->ns[k]);
        ev_svg_text(out, n_x(f, f->ns[k]), bottom + 16, "middle", "fill=\"#555555\"", lbl);
    }
    for (size_t i = 0; i < shown; i++) {
        const char *colour = ev_svg_line_colour(i);
        lvd_sb pts = {0};
        for (size_t k = 0; k < m->serve[i].n_pts; k++) {
            double v = point_value(&m->serve[i].pts[k], tps);
            if (!isfinite(v))
                continue;
            ev_svg_dot(out, &pts, n_x(f, m->serve[i].pts[k].clients), bottom - v / axis * h, colour);
        }
        ev_svg_polyline(out, &pts, colour);
        lvd_sb_free(&pts);
    }
}

void ev_svg_serve(const ev_model *m, lvd_sb *out)
{
    size_t shown = 0;
    while (shown < m->n_serve && shown < EV_SERVE_LINES && m->serve[shown].rank)
        shown++;
    serve_frame f = {.x0 = 70, .x1 = 720};
    for (size_t i = 0; i < shown; i++)
        for (size_t k = 0; k < m->serve[i].n_pts; k++)
            add_n(&f, m->serve[i].pts[k].clients);
    const double top1 = 64, top2 = top1 + 160 + 64, legend_y = top2 + 160 + 44, row = 18;
    double h = legend_y + row * (double)(shown ? shown : 1) + 10;
    lvd_sb title = {0};
    lvd_sb_addf(&title, "Serving under load (lvd serve), leading launch lines: %s", m->name);
    ev_svg_open(out, 760, h, lvd_sb_str(&title));
    ev_svg_title(out, lvd_sb_str(&title));
    lvd_sb_free(&title);
    panel(out, m, shown, &f, top1, 0);
    panel(out, m, shown, &f, top2, 1);
    for (size_t i = 0; i < shown; i++) {
        const ev_serve_line *l = &m->serve[i];
        double ly = legend_y + row * (double)i;
        lvd_sb_adds(out, "<rect x=\"");
        ev_svg_num(out, f.x0);
        lvd_sb_adds(out, "\" y=\"");
        ev_svg_num(out, ly - 9);
        lvd_sb_addf(out, "\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", ev_svg_line_colour(i));
        char rest[64];
        snprintf(rest, sizeof rest, " (#%zu), %d+%d tokens a request", l->rank, l->n_prompt, l->n_gen);
        ev_svg_text_parts(out, f.x0 + 20, ly, "start", NULL, l->label, rest);
    }
    lvd_sb_adds(out, "</svg>\n");
}
