/* svghist.c: the tg and pp history charts (render.h ev_svg_history), readable at
 * 14 and at 365 nights: one panel per backend, each on its own y scale (a
 * CPU arm at 50 t/s and a CUDA arm at 1000 never share an axis); points by
 * night or by ISO week with the week's spread as a band (history.h); each
 * arm a distinct colour and dash pair, drawn in the legend; date ticks
 * chosen by the room a label needs, anchored on the newest night. Its size
 * grows with arms and weeks shown, not with nights. Pure. */
#include "evidence/format.h"
#include "evidence/history.h"
#include "evidence/render.h"
#include "evidence/svgkit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHART_W 760.0
#define PANEL_H 110.0
#define PANEL_GAP 38.0
#define LEGEND_ROW 18.0
#define LOG_RATIO 5.0

typedef struct hseries {
    const ev_arm *arm;
    ev_hist_pt *pts;
    size_t n, panel;
    const char *colour, *dash; /* dash NULL: solid */
} hseries;

typedef struct hpanel {
    const char *backend;
    double top, bottom, lo, hi, step;
    int log;                /* log10 scale: the panel's speeds differ by LOG_RATIO or more */
    size_t n_arms;
} hpanel;

typedef struct hchart {
    double x0, x1, d0, d1, legend_top, h;
    int weekly;
    hseries *s;
    size_t ns;
    hpanel *p;
    size_t np;
} hchart;

/* The dash patterns, one per group of EV_SVG_PALETTE arms. */
static const char *dash_of(size_t group)
{
    static const char *const dashes[] = {NULL, "7 4", "2 3", "9 3 2 3", "4 4", "1 5"};
    return dashes[group % LVD_ARRAY_LEN(dashes)];
}

static size_t panel_of(hchart *c, const char *backend)
{
    for (size_t k = 0; k < c->np; k++)
        if (!strcmp(c->p[k].backend, backend))
            return k;
    c->p[c->np] = (hpanel){.backend = backend};
    return c->np++;
}

/* Colour and dash of each series: panel by panel, each panel starting the
 * palette again on a dash of its own, so within a panel colours differ and
 * no two arms of the chart share both (up to 6 x EV_SVG_PALETTE arms). */
static void assign_styles(hchart *c)
{
    size_t group = 0;
    for (size_t k = 0; k < c->np; k++) {
        size_t j = 0;
        for (size_t i = 0; i < c->ns; i++) {
            if (c->s[i].panel != k)
                continue;
            c->s[i].colour = ev_svg_line_colour(j % EV_SVG_PALETTE);
            c->s[i].dash = dash_of(group + j / EV_SVG_PALETTE);
            j++;
        }
        group += (j + EV_SVG_PALETTE - 1) / EV_SVG_PALETTE;
    }
}

/* Panel k's y range: its points' spread, padded, on nice ticks. */
static void panel_scale(hchart *c, size_t k)
{
    hpanel *p = &c->p[k];
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < c->ns; i++)
        for (size_t j = 0; c->s[i].panel == k && j < c->s[i].n; j++) {
            lo = fmin(lo, c->s[i].pts[j].lo);
            hi = fmax(hi, c->s[i].pts[j].hi);
        }
    if (lo > 0 && hi / lo >= LOG_RATIO) {
        p->log = 1;
        p->lo = lo / 1.15;
        p->hi = hi * 1.15;
        return;
    }
    double span = hi - lo, raw_lo = lo;
    if (!(span > fabs(hi) * 1e-6))
        span = fabs(hi) > 0 ? fabs(hi) * 0.04 : 2;
    lo -= span * 0.08;
    hi += span * 0.08;
    p->step = ev_svg_nice_step(hi - lo, 3.0);
    p->lo = floor(lo / p->step) * p->step;
    p->hi = ceil(hi / p->step) * p->step;
    if (p->lo < 0 && raw_lo >= 0)
        p->lo = 0;
}

/* The series in panel order (arm order within a panel), as the legend lists them. */
static void by_panel(hchart *c)
{
    hseries *v = lvd_xcalloc(c->ns + 1, sizeof *v);
    size_t n = 0;
    for (size_t k = 0; k < c->np; k++)
        for (size_t i = 0; i < c->ns; i++)
            if (c->s[i].panel == k)
                v[n++] = c->s[i];
    free(c->s);
    c->s = v;
}

static void chart_build(const ev_model *m, int tg, hchart *c)
{
    memset(c, 0, sizeof *c);
    c->weekly = ev_hist_weekly(m);
    c->s = lvd_xcalloc(m->n_arms + 1, sizeof *c->s);
    c->p = lvd_xcalloc(m->n_arms + 1, sizeof *c->p);
    for (size_t i = 0; i < m->n_arms; i++) {
        const ev_arm *a = &m->arms[i];
        size_t nh = tg ? a->n_hist : a->n_hist_pp;
        if (!nh)
            continue;
        hseries *s = &c->s[c->ns++];
        s->arm = a;
        ev_hist_points(tg ? a->hist : a->hist_pp, nh, c->weekly, &s->pts, &s->n);
        s->panel = panel_of(c, a->backend ? a->backend : "");
        c->p[s->panel].n_arms++;
    }
    by_panel(c);
    assign_styles(c);
    c->x0 = 76;
    c->x1 = CHART_W - 44;
    c->d0 = m->n_dates ? (double)ev_day_of(m->dates[0]) : 0;
    c->d1 = m->n_dates ? (double)ev_day_of(m->dates[m->n_dates - 1]) : 0;
    double top = 74;
    for (size_t k = 0; k < c->np; k++) {
        panel_scale(c, k);
        c->p[k].top = top;
        c->p[k].bottom = top + PANEL_H;
        top = c->p[k].bottom + PANEL_GAP;
    }
    double last = c->np ? c->p[c->np - 1].bottom : top;
    c->legend_top = last + 44;
    c->h = c->legend_top + LEGEND_ROW * (double)(c->ns ? c->ns : 1);
}

static void chart_free(hchart *c)
{
    for (size_t i = 0; i < c->ns; i++)
        free(c->s[i].pts);
    free(c->s);
    free(c->p);
}

static double x_of(const hchart *c, double day)
{
    return c->d1 > c->d0 ? c->x0 + (c->x1 - c->x0) * (day - c->d0) / (c->d1 - c->d0) : (c->x0 + c->x1) / 2;
}

static double y_of(const hpanel *p, double v)
{
    if (p->log)
        return p->bottom - (log10(v) - log10(p->lo)) / (log10(p->hi) - log10(p->lo)) * PANEL_H;
    return p->bottom - (v - p->lo) / (p->hi - p->lo) * PANEL_H;
}

/* The tick after v: the next step, or on a log scale the next 1, 2, 5 x
 * 10^k (only powers of ten past three decades). */
static double next_tick(const hpanel *p, double v)
{
    if (!p->log)
        return v + p->step;
    double mag = pow(10.0, floor(log10(v) + 1e-9)), f = v / mag;
    if (log10(p->hi / p->lo) > 3)
        return mag * 10;
    return f < 1.5 ? 2 * mag : f < 3.5 ? 5 * mag : 10 * mag;
}

/* The first tick at or above the panel's bottom. */
static double first_tick(const hpanel *p)
{
    if (!p->log)
        return p->lo;
    double t = pow(10.0, floor(log10(p->lo)));
    while (t < p->lo * (1 - 1e-9))
        t = next_tick(p, t);
    return t;
}

/* A panel's horizontal grid, its y labels, its bottom edge and its backend
 * above it. */
static void panel_axes(lvd_sb *out, const hchart *c, const hpanel *p)
{
    for (double v = first_tick(p); v <= p->hi * (1 + 1e-9) + p->step * 1e-6; v = next_tick(p, v)) {
        double y = y_of(p, v);
        ev_svg_line(out, c->x0, y, c->x1, y, "stroke=\"#e0e0e0\" stroke-width=\"1\"");
        lvd_sb lbl = {0};
        ev_svg_tick_label(&lbl, v, p->log ? fmin(1, v) : p->step);
        ev_svg_text(out, c->x0 - 6, y + 4, "end", "fill=\"#555555\"", lvd_sb_str(&lbl));
        lvd_sb_free(&lbl);
    }
    ev_svg_line(out, c->x0, p->bottom, c->x1, p->bottom, "stroke=\"#999999\" stroke-width=\"1\"");
    lvd_sb name = {0};
    lvd_sb_addf(&name, "%s (%zu arm%s%s)", *p->backend ? p->backend : "other", p->n_arms, p->n_arms == 1 ? "" : "s",
                p->log ? ", log scale" : "");
    ev_svg_text(out, c->x0, p->top - 13, "start", "font-weight=\"bold\"", lvd_sb_str(&name));
    lvd_sb_free(&name);
}

/* The spacing of date ticks, in days: the smallest that leaves a date label
 * its width and a gap. */
static double date_step(const hchart *c)
{
    static const double steps[] = {1, 2, 3, 7, 14, 28, 56, 91, 182, 364, 728, 1456};
    double per_day = c->d1 > c->d0 ? (c->x1 - c->x0) / (c->d1 - c->d0) : 1e9;
    double room = 10 * EV_SVG_CHAR_W + 16;
    for (size_t i = 0; i < LVD_ARRAY_LEN(steps); i++)
        if (steps[i] * per_day >= room)
            return steps[i];
    return c->d1 - c->d0 + 1;
}

/* Date ticks back from the newest night: a grid line through every panel,
 * the date below the last. */
static void date_ticks(lvd_sb *out, const hchart *c)
{
    if (!c->np)
        return;
    double step = date_step(c), y = c->p[c->np - 1].bottom + 16;
    for (double d = c->d1; d >= c->d0 - 1e-9; d -= step) {
        double x = x_of(c, d);
        for (size_t k = 0; k < c->np; k++)
            ev_svg_line(out, x, c->p[k].top, x, c->p[k].bottom, "stroke=\"#eeeeee\" stroke-width=\"1\"");
        char date[11];
        ev_day_date((long)d, date);
        ev_svg_text(out, x, y, "middle", "fill=\"#555555\"", date);
        if (c->d1 <= c->d0)
            break;
    }
}

/* The series' stroke: its colour and dash. */
static void stroke_attrs(lvd_sb *out, const hseries *s)
{
    lvd_sb_addf(out, "stroke=\"%s\" stroke-width=\"2\"", s->colour);
    if (s->dash)
        lvd_sb_addf(out, " stroke-dasharray=\"%s\"", s->dash);
}

static void point_xy(lvd_sb *out, double x, double y)
{
    ev_svg_num(out, x);
    lvd_sb_adds(out, ",");
    ev_svg_num(out, y);
}

/* One series: the weekly band, the line, and a dot per night. */
static void draw_series(lvd_sb *out, const hchart *c, const hseries *s)
{
    const hpanel *p = &c->p[s->panel];
    if (c->weekly && s->n > 1) {
        lvd_sb_addf(out, "<polygon fill=\"%s\" fill-opacity=\"0.15\" stroke=\"none\" points=\"", s->colour);
        for (size_t j = 0; j < 2 * s->n; j++) {
            const ev_hist_pt *pt = &s->pts[j < s->n ? j : 2 * s->n - 1 - j];
            lvd_sb_adds(out, j ? " " : "");
            point_xy(out, x_of(c, pt->day), y_of(p, j < s->n ? pt->lo : pt->hi));
        }
        lvd_sb_adds(out, "\"/>\n");
    }
    if (s->n > 1) {
        lvd_sb_adds(out, "<polyline fill=\"none\" ");
        stroke_attrs(out, s);
        lvd_sb_adds(out, " points=\"");
        for (size_t j = 0; j < s->n; j++) {
            lvd_sb_adds(out, j ? " " : "");
            point_xy(out, x_of(c, s->pts[j].day), y_of(p, s->pts[j].median));
        }
        lvd_sb_adds(out, "\"/>\n");
    }
    for (size_t j = 0; (!c->weekly || s->n == 1) && j < s->n; j++) {
        lvd_sb_adds(out, "<circle cx=\"");
        ev_svg_num(out, x_of(c, s->pts[j].day));
        lvd_sb_adds(out, "\" cy=\"");
        ev_svg_num(out, y_of(p, s->pts[j].median));
        lvd_sb_addf(out, "\" r=\"3\" fill=\"%s\"/>\n", s->colour);
    }
}

/* Legend row `row`: the series' line as drawn, its label, its newest point. */
static void legend_row(lvd_sb *out, const hchart *c, const hseries *s, size_t row)
{
    double y = c->legend_top + LEGEND_ROW * (double)row;
    lvd_sb style = {0};
    stroke_attrs(&style, s);
    ev_svg_line(out, 12, y - 4, 46, y - 4, lvd_sb_str(&style));
    lvd_sb_free(&style);
    const ev_hist_pt *last = &s->pts[s->n - 1];
    lvd_sb lbl = {0};
    lvd_sb_adds(&lbl, ": ");
    ev_fmt_ts(&lbl, last->median);
    lvd_sb_addf(&lbl, c->weekly ? ", week of %s" : " on %s", last->date);
    ev_svg_text_parts(out, 54, y, "start", NULL, s->arm->label, lvd_sb_str(&lbl));
    lvd_sb_free(&lbl);
}

void ev_svg_history(const ev_model *m, lvd_sb *out)
{
    ev_svg_history_of(m, 1, out);
}

void ev_svg_history_of(const ev_model *m, int tg, lvd_sb *out)
{
    hchart c;
    chart_build(m, tg, &c);
    const char *col = tg ? m->tg_test : m->pp_test, *test = *col ? col : tg ? "tg" : "pp";
    lvd_sb title = {0};
    lvd_sb_addf(&title, "%s t/s per arm across nights: %s", test, m->name);
    ev_svg_open(out, CHART_W, c.h, lvd_sb_str(&title));
    ev_svg_title(out, lvd_sb_str(&title));
    lvd_sb_free(&title);
    ev_svg_text_parts(out, 10, 38, "start", "font-size=\"11\" fill=\"#555555\"", "",
                c.weekly ? "Each backend on its own scale. A point per week (Mon-Sun): the median night; "
                           "band: its lowest to highest night."
                         : "Each backend on its own scale. A point per night: the median of its kept samples.");
    for (size_t k = 0; k < c.np; k++)
        panel_axes(out, &c, &c.p[k]);
    date_ticks(out, &c);
    for (size_t i = 0; i < c.ns; i++)
        draw_series(out, &c, &c.s[i]);
    for (size_t i = 0; i < c.ns; i++)
        legend_row(out, &c, &c.s[i], i);
    if (!c.ns)
        ev_svg_text(out, c.x0 + 8, 90, "start", "fill=\"#555555\"", "no dated measurements");
    lvd_sb_adds(out, "</svg>\n");
    chart_free(&c);
}
